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
import { sharedProbe } from './shared-probe.js'
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
  const probe = () => sharedProbe(settings, init, internals.exposeProcess)
  if (settings.engine === 'node-vm') return createNodeVmBackend(settings, init, internals)
  if (settings.engine === 'auto') return createAutoBackend(settings, probe, () => createNodeVmBackend(settings, init, internals))
  return createEngineBackend(settings.engine, settings, probe)
}

/** One fresh child per run (or per session), running the guest in a `node:vm` context. */
function createNodeVmBackend(settings: ResolvedOptions, init: InitMessage, internals: TestInternals): SubprocessBackend {
  const capabilities = subprocessCapabilities(settings.networkIsolation)
  let pool: WarmPool | undefined
  let disposed = false

  let ownProbe: Promise<LaunchResult> | undefined
  const launch = (): Promise<LaunchResult> => (ownProbe ??= sharedProbe(settings, init, internals.exposeProcess))

  const getPool = async (): Promise<WarmPool | string> => {
    const result = await launch()
    if (!result.ok) return result.reason
    if (disposed) return 'the backend was disposed'
    pool ??= new WarmPool((memoryMb) => new GuestChild(result.plan, memoryMb, init), settings.poolSize, settings.poolIdleMs)
    return pool
  }

  async function execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    if (disposed) return unavailable('the backend was disposed')
    if (request.signal.aborted || Date.now() >= request.deadline) return { ok: false, error: stopError(request) }
    // The first run waits for the probe (a few process starts): a stop must not wait for it.
    const ready = await untilStopped(getPool(), request)
    if (ready instanceof Stopped) return { ok: false, error: ready.error }
    if (typeof ready === 'string') return unavailable(ready)
    let child: GuestChild | Stopped
    try {
      child = await untilStopped(ready.acquire(request.limits.memoryMb), request, (late) => late.kill())
    } catch (error) {
      return { ok: false, error: { code: 'BACKEND_CRASHED', message: `could not start a child process: ${(error as Error).message}` } }
    }
    if (child instanceof Stopped) return { ok: false, error: child.error }
    try {
      return await runOnChild(child, request, settings.memoryCheckMs)
    } finally {
      ready.replenish(request.limits.memoryMb)
    }
  }

  async function openSession({ memoryMb }: SessionRequest): Promise<BackendSession> {
    if (disposed) throw new SandboxError('BACKEND_UNAVAILABLE', 'the backend was disposed')
    const ready = await getPool()
    if (typeof ready === 'string') throw new SandboxError('BACKEND_UNAVAILABLE', ready)
    let child: GuestChild
    try {
      child = await ready.acquire(memoryMb)
    } catch (error) {
      const message = `could not start a child process for the session: ${(error as Error).message}`
      if (ranOutOfMemory(message)) throw new SandboxError('MEMORY_LIMIT', `memoryMb ${memoryMb} cannot hold a child process: ${message}`)
      throw new SandboxError('BACKEND_CRASHED', message, { cause: error })
    }
    ready.replenish(memoryMb)
    return new ChildSession(child, settings.memoryCheckMs)
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
      void getPool().then((ready) => (typeof ready === 'string' ? undefined : ready.warm(DEFAULT_MEMORY_MB)))
    },
    execute,
    openSession,
    async dispose() {
      disposed = true
      await pool?.dispose()
    },
    async diagnose() {
      const { diagnostics } = await launch()
      const lastStartError = pool?.lastStartError
      return lastStartError === undefined ? { ...diagnostics, engine: 'node-vm' } : { ...diagnostics, engine: 'node-vm', lastStartError }
    },
    async warm(memoryMb = DEFAULT_MEMORY_MB) {
      const ready = await getPool()
      if (typeof ready !== 'string') await ready.warm(memoryMb)
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
