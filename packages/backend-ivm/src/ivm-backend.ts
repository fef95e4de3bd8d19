import type { ExecuteOutcome, ExecuteRequest, SandboxBackend } from '@cordon/core'
import { IVM_CAPABILITIES } from './capabilities.js'
import { createEngineLoader } from './engine-loader.js'
import { runInVm, type RunStopper } from './guest-run.js'
import { createGuestVm, type GuestVm } from './guest-vm.js'
import { IsolatePool } from './isolate-pool.js'
import { resolveIvmOptions, type IvmBackendOptions } from './options.js'
import { currentProcess, missingNoNodeSnapshot } from './runtime-check.js'

/**
 * A backend that runs each program in a fresh V8 isolate (isolated-vm). Nothing is loaded
 * or created until the first `execute`; a failed load resolves BACKEND_UNAVAILABLE with
 * the cause and the fix.
 */
export function createIvmBackend(options: IvmBackendOptions = {}): SandboxBackend {
  const settings = resolveIvmOptions(options)
  const load = createEngineLoader(settings.isolatedVm)
  const active = new Set<RunStopper>()
  let pool: IsolatePool | undefined
  let disposed = false
  /** Set after a catastrophic isolated-vm error: the process must be restarted. */
  let broken: string | undefined
  const onCatastrophicError =
    settings.onCatastrophicError === undefined
      ? undefined
      : (message: string) => {
          if (broken !== undefined) return
          broken = message
          pool?.dispose()
          settings.onCatastrophicError?.(message)
        }

  async function execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    if (disposed) return unavailable('this ivm backend was disposed; create a new one')
    if (broken !== undefined) return crashed(broken)
    const unfit = missingNoNodeSnapshot(currentProcess())
    if (unfit !== undefined) return unavailable(unfit)
    const engine = await load()
    if (!engine.ok) return unavailable(engine.message)
    if (disposed) return unavailable('this ivm backend was disposed; create a new one')
    pool ??= new IsolatePool({
      size: settings.poolSize,
      idleMs: settings.poolIdleMs,
      create: (memoryMb) => createGuestVm(engine.ivm, memoryMb, onCatastrophicError),
    })
    let vm: GuestVm
    try {
      vm = await pool.take(request.limits.memoryMb)
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      return { ok: false, error: { code: 'BACKEND_CRASHED', message: `isolated-vm could not create an isolate: ${message}` } }
    }
    if (disposed) {
      vm.dispose()
      return unavailable('this ivm backend was disposed; create a new one')
    }
    try {
      return await runInVm(vm, request, active)
    } finally {
      pool.runEnded()
    }
  }

  return {
    specificationVersion: 'v1',
    name: 'ivm',
    capabilities: IVM_CAPABILITIES,
    execute,
    async dispose() {
      disposed = true
      pool?.dispose()
      for (const stop of [...active]) stop({ code: 'ABORTED', message: 'the ivm backend was disposed' })
    },
  }
}

function crashed(cause: string): ExecuteOutcome {
  const message = `isolated-vm reported a catastrophic error earlier (${cause}); restart the process to run code again`
  return { ok: false, error: { code: 'BACKEND_CRASHED', message } }
}

function unavailable(message: string): ExecuteOutcome {
  return { ok: false, error: { code: 'BACKEND_UNAVAILABLE', message } }
}
