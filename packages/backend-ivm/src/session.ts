import { SandboxError, type BackendSession, type ExecuteOutcome } from '@cordon/core/backend'
import { runInVm, type RegisterStopper, type RunStopper } from './run.js'
import type { GuestVm } from './guest-vm.js'

/** What a session needs from the backend that opened it. */
export interface SessionHooks {
  /** Registers a run's stopper with the backend too, whose dispose stops every run. */
  register: RegisterStopper
  /** Why the backend accepts no more runs (disposed, or broken by a catastrophic error), if so. */
  refusal(): ExecuteOutcome | undefined
  /** A run ended: the backend may top its pool up now. */
  runEnded(): void
  /** The session is over and its isolate disposed. */
  forget(session: BackendSession): void
}

/**
 * A session: one isolate, one context and one guest runtime for many runs, one at a time. An
 * `inspectable` session's isolate was made with V8's inspector, so its runs may have one.
 * Guest globals stay in the context; each run installs its own tools, limits and logs. A run
 * that ends by itself keeps the isolate; a run stopped from outside or by the engine disposed
 * it (see run.ts), and the session is then no longer `alive`.
 */
export function createIvmSession(vm: GuestVm, inspectable: boolean, hooks: SessionHooks): BackendSession {
  let disposed = false
  let running: RunStopper | undefined

  const end = () => {
    vm.dispose()
    if (disposed) return
    disposed = true
    hooks.forget(session)
  }

  const register: RegisterStopper = (stop) => {
    running = stop
    const forget = hooks.register(stop)
    return () => {
      running = undefined
      forget()
    }
  }

  const session: BackendSession = {
    get alive() {
      return !disposed && !vm.isolate.isDisposed
    },

    async execute(request) {
      if (!session.alive) return { ok: false, error: { code: 'BACKEND_CRASHED', message: 'this ivm session has ended' } }
      if (running !== undefined) return { ok: false, error: { code: 'INTERNAL', message: 'an ivm session runs one program at a time' } }
      if (request.inspector !== undefined && !inspectable) {
        return { ok: false, error: { code: 'UNSUPPORTED', message: 'this ivm session was not opened with inspector: true' } }
      }
      const refused = hooks.refusal()
      if (refused !== undefined) {
        end()
        return refused
      }
      try {
        return await runInVm(vm, request, register, { keep: true })
      } finally {
        if (vm.isolate.isDisposed) end()
        hooks.runEnded()
      }
    },

    async memoryUsage() {
      if (!session.alive) throw new SandboxError('DISPOSED', 'this ivm session has ended')
      try {
        // Asynchronous on purpose: it waits for the isolate to be free instead of blocking this thread.
        const stats = await vm.isolate.getHeapStatistics()
        return stats.used_heap_size + stats.externally_allocated_size
      } catch (error) {
        if (vm.isolate.isDisposed)
          throw new SandboxError('DISPOSED', 'this ivm session ended while its memory was being measured', { cause: error })
        throw new SandboxError('BACKEND_CRASHED', `isolated-vm could not measure the session's heap: ${String(error)}`, { cause: error })
      }
    },

    dispose() {
      running?.({ code: 'ABORTED', message: 'the session was disposed' })
      end()
      return Promise.resolve()
    },
  }
  return session
}
