/**
 * An in-process node:vm backend for core's own tests. NOT a security boundary
 * (node:vm never is): it exists to exercise core and the guest runtime quickly.
 */
import vm from 'node:vm'
import {
  GUEST_RUNTIME_SOURCE,
  createGuestHost,
  outcomeFromDone,
  type ExecuteOutcome,
  type ExecuteRequest,
  type GuestRuntime,
  type SandboxBackend,
} from '../../src/index.js'

export function createVmTestBackend(): SandboxBackend {
  return {
    specificationVersion: 'v1',
    name: 'vm-test',
    capabilities: {
      isolation: 'v8-isolate',
      memoryLimit: false,
      syncHostCalls: true,
      survivesGuestOom: false,
      cpuTime: false,
      heapStats: false,
      networkIsolation: false,
    },
    async execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
      const guestHost = createGuestHost(request)
      const context = vm.createContext({})
      const timeout = Math.max(1, request.deadline - Date.now())
      try {
        const factory = vm.runInContext(GUEST_RUNTIME_SOURCE, context) as (h: unknown) => GuestRuntime
        const runtime = factory(guestHost.functions)
        guestHost.connect({ settle: (...a) => runtime.settle(...a), fire: (id) => runtime.fire(id) })
        runtime.install(request.setup)
        let main: () => unknown
        try {
          main = new vm.Script(request.script, { filename: request.filename }).runInContext(context)
        } catch (error) {
          const e = error as Error
          return { ok: false, error: { code: 'SYNTAX_ERROR', name: e.name, message: e.message } }
        }
        runtime.start(main)
        const stopped = new Promise<ExecuteOutcome>((resolve) => {
          const stop = () => resolve({ ok: false, error: { code: 'TIMEOUT', message: 'stopped' } })
          if (request.signal.aborted) stop()
          request.signal.addEventListener('abort', stop, { once: true })
          setTimeout(stop, timeout)
        })
        return await Promise.race([guestHost.done.then(outcomeFromDone), stopped])
      } finally {
        guestHost.close()
      }
    },
    async dispose() {},
  }
}
