import type { RunError } from '@cordon/core'
import {
  SandboxError,
  type BackendSession,
  type ExecuteOutcome,
  type ExecuteRequest,
  type SandboxBackend,
  type SessionRequest,
} from '@cordon/core/backend'
import { ivmCapabilities } from './capabilities.js'
import { createEngineLoader } from './engine-loader.js'
import { engineFailure } from './engine-failure.js'
import { runInVm, type RegisterStopper, type RunStopper } from './run.js'
import { createGuestVm, type GuestVm } from './guest-vm.js'
import { IsolatePool } from './pool.js'
import { lostIsolates, recordLostIsolate } from './lost-isolates.js'
import { createIvmSession } from './session.js'
import { resolveIvmOptions, type IvmBackendOptions } from './options.js'
import { currentProcess, missingNoNodeSnapshot } from './runtime-check.js'

type Refusal = { ok: false; error: RunError }
type Acquired = { ok: true; vm: GuestVm } | Refusal

/**
 * A backend that runs each program in a fresh V8 isolate (isolated-vm), and each session in
 * one isolate of its own. Nothing is loaded or created until the first `execute` or
 * `openSession`; a failed load resolves BACKEND_UNAVAILABLE with the cause and the fix.
 */
export function createIvmBackend(options: IvmBackendOptions = {}): SandboxBackend {
  const settings = resolveIvmOptions(options)
  const load = createEngineLoader(settings.isolatedVm)
  const active = new Set<RunStopper>()
  const sessions = new Set<BackendSession>()
  let pool: IsolatePool | undefined
  let disposed = false
  /**
   * isolated-vm lost an isolate of ours (guest-vm.ts has already ended its run and retired it).
   * New isolates still work, so the backend carries on until the process holds more lost
   * isolates than `maxLostIsolates`.
   */
  const onLost = (message: string) => {
    recordLostIsolate(message)
    if (overBudget() !== undefined) pool?.dispose()
    const notify = settings.onCatastrophicError
    // Outside isolated-vm's own call: whatever the callback throws is the application's to see.
    if (notify !== undefined) queueMicrotask(() => notify(message))
  }
  const overBudget = (): Refusal | undefined => {
    const lost = lostIsolates()
    if (lost.count <= settings.maxLostIsolates) return undefined
    return unavailable(
      `isolated-vm has lost ${lost.count} isolate${lost.count === 1 ? '' : 's'} in this process to V8 out-of-memory errors it could ` +
        `not contain (last: ${lost.last ?? 'unknown'}), more than maxLostIsolates (${settings.maxLostIsolates}) allows: each keeps ` +
        'a parked thread and its heap until the process ends. Restart the process to use this backend again; it cannot exit ' +
        'by itself now, so end it with process.abort() or SIGKILL.',
    )
  }

  const register: RegisterStopper = (stop) => {
    active.add(stop)
    return () => active.delete(stop)
  }

  const refusal = (): Refusal | undefined => {
    if (disposed) return unavailable('this ivm backend was disposed; create a new one')
    return overBudget()
  }

  /** A prepared isolate with `memoryMb`, from the pool (see IsolatePool for single runs and sessions). */
  async function acquire(memoryMb: number, forSession: boolean, inspector = false): Promise<Acquired> {
    const refused = refusal()
    if (refused !== undefined) return refused
    const unfit = missingNoNodeSnapshot(currentProcess())
    if (unfit !== undefined) return unavailable(unfit)
    const engine = await load()
    if (!engine.ok) return unavailable(engine.message)
    if (disposed) return unavailable('this ivm backend was disposed; create a new one')
    pool ??= new IsolatePool({
      size: settings.poolSize,
      burstSize: settings.poolBurstSize,
      idleMs: settings.poolIdleMs,
      busy: () => active.size > 0,
      create: (size) => createGuestVm(engine.ivm, size, onLost),
    })
    let vm: GuestVm
    try {
      // An inspected run gets an isolate of its own made with V8's inspector: pooled ones have none.
      if (inspector) vm = await createGuestVm(engine.ivm, memoryMb, onLost, { inspector })
      else vm = await (forSession ? pool.takeIfFits(memoryMb) : pool.take(memoryMb))
    } catch (error) {
      // MEMORY_LIMIT when memoryMb cannot even hold the guest runtime.
      const failure = engineFailure(error, memoryMb)
      if (failure.code === 'MEMORY_LIMIT') return { ok: false, error: failure }
      const message = error instanceof Error ? error.message : String(error)
      return { ok: false, error: { code: 'BACKEND_CRASHED', message: `isolated-vm could not create an isolate: ${message}` } }
    }
    const late = refusal()
    if (late !== undefined) {
      vm.dispose()
      return late
    }
    return { ok: true, vm }
  }

  /** A single run: a one-run session whose isolate is disposed however the run ends. */
  async function execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    const acquired = await acquire(request.limits.memoryMb, false, request.inspector !== undefined)
    if (!acquired.ok) return acquired
    let idle = false
    try {
      return await runInVm(acquired.vm, request, register, { keep: false, onEnd: (ended) => (idle = ended) })
    } finally {
      disposeAfterRun(acquired.vm, idle)
      pool?.runEnded()
    }
  }

  async function openSession({ memoryMb, inspector }: SessionRequest): Promise<BackendSession> {
    const inspectable = inspector === true
    const acquired = await acquire(memoryMb, true, inspectable)
    if (!acquired.ok) throw new SandboxError(acquired.error.code, acquired.error.message)
    const session = createIvmSession(acquired.vm, inspectable, {
      register,
      refusal,
      runEnded: () => pool?.runEnded(),
      forget: (ended) => sessions.delete(ended),
    })
    sessions.add(session)
    return session
  }

  return {
    specificationVersion: 'v1',
    name: 'ivm',
    capabilities: ivmCapabilities(settings.inspector),
    execute,
    openSession,
    async dispose() {
      disposed = true
      pool?.dispose()
      for (const stop of [...active]) stop({ code: 'ABORTED', message: 'the ivm backend was disposed' })
      await Promise.all([...sessions].map((session) => session.dispose()))
    },
  }
}

/**
 * An idle isolate (nothing executing in it, its port detached) can wait until the result has
 * reached the caller; one still executing (guest code left running after its result) goes now.
 */
function disposeAfterRun(vm: GuestVm, idle: boolean): void {
  if (idle) setImmediate(() => vm.dispose())
  else vm.dispose()
}

function unavailable(message: string): Refusal {
  return { ok: false, error: { code: 'BACKEND_UNAVAILABLE', message } }
}
