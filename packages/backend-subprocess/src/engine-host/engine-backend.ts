/**
 * The subprocess backend with engine children: a supervised pool of long-lived, locked-down
 * children, each serving one engine backend (isolated-vm or QuickJS) over the channel protocol,
 * so each run gets a fresh isolate or QuickJS instance inside a child. The engine boundary keeps
 * runs apart; the process boundary keeps the host safe from the engine. A child that crashes,
 * runs out of memory, breaks the protocol or does not stop a run in time is killed and its runs
 * end; runs in other children go on.
 */
import { SandboxError, createSandbox } from '@cordon/core'
import {
  ChannelPool,
  stopError,
  type BackendCapabilities,
  type BackendSession,
  type ExecuteOutcome,
  type ExecuteRequest,
  type SessionRequest,
} from '@cordon/core/backend'
import type { EngineName } from '../engine-child/engine-init.js'
import type { ResolvedOptions } from '../options.js'
import type { Diagnostics, LaunchResult } from '../probe.js'
import type { Launcher } from '../shared-probe.js'
import { engineCapabilities } from './engine-capabilities.js'
import { startEngineChild } from './engine-child-link.js'
import { engineChildSpec } from './engine-child-spec.js'

/**
 * How long a stopped run's engine may take to report before the run is resolved anyway. Its
 * report carries the logs the guest wrote before the stop; a loaded machine needs a few scheduler
 * turns for the child's engine thread to unwind and the report to cross. Within the deadline slack.
 */
const STOP_GRACE_MS = 250
/** How long after that before the child is killed as stuck (its other runs end too). */
const KILL_GRACE_MS = 2_000
/** Report strings are capped by the run's own limits on the far side; this bounds a broken child. */
const MAX_REPORT_CHARS = 2 ** 30
const MAX_FRAME_BYTES = 2 ** 31 - 1
export interface EngineHost {
  readonly engine: EngineName
  readonly capabilities: BackendCapabilities
  execute(request: ExecuteRequest): Promise<ExecuteOutcome>
  openSession(request: SessionRequest): Promise<BackendSession>
  /** Starts a child and runs a tiny program in it: undefined when the engine works here, else why not. */
  check(): Promise<string | undefined>
  /** Starts a child, left for the first run (of any partition); returns at once. */
  prepare(): void
  diagnose(): Promise<Diagnostics & { engine: EngineName }>
  dispose(): Promise<void>
}

/**
 * Told how the first children of a launch plan fared: `started` once one said hello, `failed`
 * when one was gone before it did (the plan may be stale, see shared-probe.ts).
 */
export interface ChildStartWatch {
  started(result: LaunchResult): void
  failed(result: LaunchResult, reason: string): void
}

export function createEngineHost(
  engine: EngineName,
  settings: ResolvedOptions,
  launcher: Pick<Launcher, 'plan' | 'known'>,
  watch?: ChildStartWatch,
): EngineHost {
  const capabilities = engineCapabilities(engine, settings.networkIsolation)
  let pool: Promise<ChannelPool | string> | undefined
  let live: ChannelPool | undefined
  /** Set once a child says its engine cannot load: no other child would do better. */
  let unavailable: string | undefined
  let disposed = false

  const build = (result: LaunchResult): ChannelPool | string => {
    if (!result.ok) return result.reason
    if (disposed) return 'the backend was disposed'
    const spec = engineChildSpec(engine, settings)
    if (typeof spec === 'string') return spec
    live = new ChannelPool({
      label: `${engine} engine child`,
      start: (poolEvents) => {
        // The first batch a child sends starts with its hello; a child lost before that never started.
        let greeted = false
        const events: typeof poolEvents = {
          receive: (batch) => {
            if (!greeted) {
              greeted = true
              watch?.started(result)
            }
            poolEvents.receive(batch)
          },
          lost: (error) => {
            if (!greeted) watch?.failed(result, error.message)
            poolEvents.lost(error)
          },
        }
        try {
          return startEngineChild(
            {
              plan: result.plan,
              launch: spec.launch,
              init: spec.init,
              maxFrameBytes: MAX_FRAME_BYTES,
              onFatal: (reason) => (unavailable ??= reason),
            },
            events,
          )
        } catch (error) {
          watch?.failed(result, (error as Error).message)
          throw error
        }
      },
      maxSides: settings.maxChildren,
      minSides: 1,
      idleMs: settings.poolIdleMs,
      maxChars: MAX_REPORT_CHARS,
      stopGraceMs: STOP_GRACE_MS,
      killGraceMs: KILL_GRACE_MS,
      capacity: { runs: settings.runsPerChild, memoryMb: settings.childMemoryMb },
      // Runs of different partitions (by default: sandboxes) never share a child.
      partitioned: true,
      retireAfterRuns: settings.runsPerChildLifetime,
      // An isolate that ran out of memory may have been lost with its heap: start afresh.
      retireAfter: (outcome) => engine === 'isolated-vm' && !outcome.ok && outcome.error.code === 'MEMORY_LIMIT',
    })
    return live
  }
  const getPool = (): Promise<ChannelPool | string> => {
    if (pool !== undefined) return pool
    const known = launcher.known()
    if (known === undefined) return (pool = launcher.plan().then(build))
    // The executor runs now: the pool exists (and `live` is set) when this returns.
    return (pool = new Promise((resolve) => resolve(build(known))))
  }

  async function execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    if (disposed) return notAvailable('the backend was disposed')
    if (unavailable !== undefined) return notAvailable(unavailable)
    if (request.signal.aborted || Date.now() >= request.deadline) return { ok: false, error: stopError(request) }
    const ready = await getPool()
    if (typeof ready === 'string') return notAvailable(ready)
    return ready.execute(request)
  }

  return {
    engine,
    capabilities,
    execute,
    async openSession({ memoryMb, partition, inspector }) {
      if (disposed) throw new SandboxError('BACKEND_UNAVAILABLE', 'the backend was disposed')
      if (unavailable !== undefined) throw new SandboxError('BACKEND_UNAVAILABLE', unavailable)
      const ready = await getPool()
      if (typeof ready === 'string') throw new SandboxError('BACKEND_UNAVAILABLE', ready)
      return ready.openSession(memoryMb, partition, inspector === true)
    },
    async check() {
      // Without a partition: the child it starts is left for whichever partition needs one first.
      const unpartitioned = (request: ExecuteRequest) => execute({ ...request, partition: undefined })
      const sandbox = createSandbox({
        specificationVersion: 'v1',
        name: 'subprocess',
        capabilities,
        execute: unpartitioned,
        dispose: async () => {},
      })
      // At the default memoryMb: the engine's next isolate, prepared meanwhile, then fits the first run.
      const result = await sandbox.run('1 + 1', { timeoutMs: 15_000 })
      if (result.ok && result.value === 2) return undefined
      return result.ok ? `the ${engine} engine child answered ${String(result.value)} to 1 + 1` : result.error.message
    },
    prepare() {
      if (disposed || unavailable !== undefined) return
      const ready = getPool()
      // Built at once from a known plan: the first child starts now, while core checks the program.
      if (live !== undefined) {
        try {
          live.warm()
        } catch {
          // It could not start: the run that needs it says why.
        }
      } else
        void ready.then(
          (made) => (typeof made === 'string' ? undefined : made.warm()),
          () => undefined,
        )
    },
    async diagnose() {
      const { diagnostics } = await launcher.plan()
      return { ...diagnostics, engine }
    },
    dispose() {
      disposed = true
      live?.dispose({ code: 'ABORTED', message: 'the backend was disposed' })
      return Promise.resolve()
    },
  }
}

function notAvailable(message: string): ExecuteOutcome {
  return { ok: false, error: { code: 'BACKEND_UNAVAILABLE', message } }
}
