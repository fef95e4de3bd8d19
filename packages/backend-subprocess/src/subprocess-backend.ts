import { SandboxError, type RunError } from '@cordon/core'
import {
  GUEST_RUNTIME_SOURCE,
  PRIMORDIALS_SOURCE,
  stopError,
  watchStop,
  type BackendSession,
  type ExecuteOutcome,
  type ExecuteRequest,
  type SandboxBackend,
  type SessionRequest,
} from '@cordon/core/backend'
import { subprocessCapabilities } from './capabilities.js'
import { ranOutOfMemory } from './exit-outcome.js'
import { GuestChild } from './guest-child.js'
import type { InitMessage } from './messages.js'
import { resolveOptions, type ResolvedOptions, type SubprocessBackendOptions } from './options.js'
import { createAutoBackend, createEngineBackend } from './engine-host/chosen-backend.js'
import { WarmPool } from './pool.js'
import type { Diagnostics, LaunchResult } from './probe.js'
import { sharedLauncher, type Launcher } from './shared-probe.js'
import { runOnChild } from './run.js'
import { ChildSession } from './session.js'

export interface SubprocessBackend extends SandboxBackend {
  /** How children are launched here, or why they cannot be (probes on first call). */
  diagnose(): Promise<Diagnostics>
  /** Starts warm children for `memoryMb` (default 128) and resolves when they are ready. */
  warm(memoryMb?: number): Promise<void>
}

/** Internal switches for this package's own tests; not reachable from the public factory. */
export interface TestInternals {
  /** Puts the child's `process` in every guest's globals, simulating a node:vm escape. */
  exposeProcess: boolean
}

const DEFAULT_MEMORY_MB = 128

export function createBackend(options: SubprocessBackendOptions | undefined, internals: TestInternals): SubprocessBackend {
  const settings = resolveOptions(options)
  const init: InitMessage = { runtime: GUEST_RUNTIME_SOURCE, primordials: PRIMORDIALS_SOURCE, exposeProcess: internals.exposeProcess }
  // Engine children are launched the way the probe found for per-run children.
  const launcher = sharedLauncher(settings, init, internals.exposeProcess)
  if (settings.engine === 'node-vm') return createNodeVmBackend(settings, init, launcher)
  if (settings.engine === 'auto') return createAutoBackend(settings, launcher, () => createNodeVmBackend(settings, init, launcher))
  return createEngineBackend(settings.engine, settings, launcher)
}

/** A warm pool and the launch decision its children are started with. */
interface PlanPool {
  result: LaunchResult & { ok: true }
  pool: WarmPool
}

/** One fresh child per run (or per session), running the guest in a `node:vm` context. */
function createNodeVmBackend(settings: ResolvedOptions, init: InitMessage, launcher: Launcher): SubprocessBackend {
  const capabilities = subprocessCapabilities(settings.networkIsolation)
  let current: PlanPool | undefined
  let disposed = false

  let ownProbe: Promise<LaunchResult> | undefined
  const launch = (): Promise<LaunchResult> => (ownProbe ??= launcher.plan())

  const startChild = (result: LaunchResult & { ok: true }, memoryMb: number) => {
    const child = new GuestChild(result.plan, memoryMb, init)
    child.ready.then(
      () => launcher.started(result),
      () => {},
    )
    return child
  }

  const getPool = async (): Promise<PlanPool | string> => {
    const result = await launch()
    if (!result.ok) return result.reason
    if (disposed) return 'the backend was disposed'
    if (current?.result !== result) {
      // A re-probed plan replaces one from the cache whose children did not start.
      void current?.pool.dispose()
      current = { result, pool: new WarmPool((memoryMb) => startChild(result, memoryMb), settings.poolSize, settings.poolIdleMs) }
    }
    return current
  }

  /**
   * A ready child and its pool; rejects when the child cannot start. If the first children of a
   * plan from the cache do not start, the plan is probed again and the start retried once.
   */
  async function acquire(memoryMb: number): Promise<{ pool: WarmPool; child: GuestChild } | string> {
    const ready = await getPool()
    if (typeof ready === 'string') return ready
    try {
      return { pool: ready.pool, child: await ready.pool.acquire(memoryMb) }
    } catch (error) {
      const again = launcher.failed(ready.result, (error as Error).message)
      if (again === undefined) throw error
      ownProbe = again
      const retry = await getPool()
      return typeof retry === 'string' ? retry : { pool: retry.pool, child: await retry.pool.acquire(memoryMb) }
    }
  }

  async function execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    if (disposed) return unavailable('the backend was disposed')
    if (request.signal.aborted || Date.now() >= request.deadline) return { ok: false, error: stopError(request) }
    // The first run waits for the probe (a few process starts): a stop must not wait for it.
    const ready = await untilStopped(getPool(), request)
    if (ready instanceof Stopped) return { ok: false, error: ready.error }
    if (typeof ready === 'string') return unavailable(ready)
    let got: Awaited<ReturnType<typeof acquire>> | Stopped
    try {
      got = await untilStopped(acquire(request.limits.memoryMb), request, (late) => typeof late !== 'string' && late.child.kill())
    } catch (error) {
      return { ok: false, error: { code: 'BACKEND_CRASHED', message: `could not start a child process: ${(error as Error).message}` } }
    }
    if (got instanceof Stopped) return { ok: false, error: got.error }
    if (typeof got === 'string') return unavailable(got)
    try {
      return await runOnChild(got.child, request, settings.memoryCheckMs)
    } finally {
      got.pool.replenish(request.limits.memoryMb)
    }
  }

  async function openSession({ memoryMb }: SessionRequest): Promise<BackendSession> {
    if (disposed) throw new SandboxError('BACKEND_UNAVAILABLE', 'the backend was disposed')
    let got: Awaited<ReturnType<typeof acquire>>
    try {
      got = await acquire(memoryMb)
    } catch (error) {
      const message = `could not start a child process for the session: ${(error as Error).message}`
      if (ranOutOfMemory(message)) throw new SandboxError('MEMORY_LIMIT', `memoryMb ${memoryMb} cannot hold a child process: ${message}`)
      throw new SandboxError('BACKEND_CRASHED', message, { cause: error })
    }
    if (typeof got === 'string') throw new SandboxError('BACKEND_UNAVAILABLE', got)
    got.pool.replenish(memoryMb)
    return new ChildSession(got.child, settings.memoryCheckMs)
  }

  let prepared = false
  return {
    specificationVersion: 'v1',
    name: 'subprocess',
    capabilities,
    prepare() {
      // Once: the probe and a spare child for the default memoryMb start while core checks the first program.
      if (prepared || disposed) return
      prepared = true
      void getPool().then((ready) => (typeof ready === 'string' ? undefined : ready.pool.warm(DEFAULT_MEMORY_MB)))
    },
    execute,
    openSession,
    async dispose() {
      disposed = true
      await current?.pool.dispose()
    },
    async diagnose() {
      const { diagnostics } = await launch()
      const lastStartError = current?.pool.lastStartError
      return lastStartError === undefined ? { ...diagnostics, engine: 'node-vm' } : { ...diagnostics, engine: 'node-vm', lastStartError }
    },
    async warm(memoryMb = DEFAULT_MEMORY_MB) {
      const ready = await getPool()
      if (typeof ready === 'string') return
      await ready.pool.warm(memoryMb)
      // Spares of a plan from the cache that did not start: probe again, and warm with the new plan.
      const failure = ready.pool.lastStartError
      const again = launcher.unproven(ready.result) && failure !== undefined ? launcher.failed(ready.result, failure) : undefined
      if (again === undefined) return
      ownProbe = again
      const retry = await getPool()
      if (typeof retry !== 'string') await retry.pool.warm(memoryMb)
    },
  }
}

function unavailable(message: string): ExecuteOutcome {
  return { ok: false, error: { code: 'BACKEND_UNAVAILABLE', message } }
}

/**
 * Waits for `pending` unless the run is stopped first (its signal aborts, at the deadline too).
 * A value that arrives after the stop is handed to `discard` (e.g. a child that must not be left
 * running).
 */
function untilStopped<T>(pending: Promise<T>, request: ExecuteRequest, discard?: (late: T) => void): Promise<T | Stopped> {
  return new Promise((resolve, reject) => {
    let done = false
    const stopWatching = watchStop(request, (error) => {
      done = true
      resolve(new Stopped(error))
    })
    pending.then(
      (value) => {
        if (done) return discard?.(value)
        done = true
        stopWatching()
        resolve(value)
      },
      (error: unknown) => {
        if (done) return
        done = true
        stopWatching()
        reject(error instanceof Error ? error : new Error(String(error)))
      },
    )
  })
}

/** What `untilStopped` gives when the run was stopped first. */
class Stopped {
  constructor(readonly error: RunError) {}
}
