/**
 * An in-process node:vm backend for core's own tests. NOT a security boundary
 * (node:vm never is): it exists to exercise core and the guest runtime quickly.
 * Sessions keep one context and one guest runtime, reached through a relay switch.
 */
import vm from 'node:vm'
import {
  GUEST_RUNTIME_SOURCE,
  createGuestRelay,
  createRelaySwitch,
  outcomeFromDone,
  type BackendSession,
  type ExecuteOutcome,
  type ExecuteRequest,
  type GuestRuntime,
  type RelaySwitch,
  type SandboxBackend,
} from '../../src/backend/index.js'

interface VmEngine {
  context: vm.Context
  runtime: GuestRuntime
  relaySwitch: RelaySwitch
}

function newEngine(): VmEngine {
  const context = vm.createContext({})
  const relaySwitch = createRelaySwitch()
  const factory = vm.runInContext(GUEST_RUNTIME_SOURCE, context) as (h: unknown) => GuestRuntime
  return { context, runtime: factory(relaySwitch.functions), relaySwitch }
}

/** One run on an engine. `stopped` is set when the run ended from outside (its state is then unknown). */
async function runOn(engine: VmEngine, request: ExecuteRequest): Promise<{ outcome: ExecuteOutcome; stopped: boolean }> {
  const relay = createGuestRelay(request)
  engine.relaySwitch.attach(relay)
  const timeout = Math.max(1, request.deadline - Date.now())
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    relay.connect({ settle: (...a) => engine.runtime.settle(...a), fire: (id) => engine.runtime.fire(id) })
    engine.runtime.install(request.setup)
    let main: () => unknown
    try {
      main = new vm.Script(request.script, { filename: request.filename }).runInContext(engine.context)
    } catch (error) {
      const e = error as Error
      return { outcome: { ok: false, error: { code: 'SYNTAX_ERROR', name: e.name, message: e.message } }, stopped: false }
    }
    engine.runtime.start(main)
    const stopped = new Promise<{ outcome: ExecuteOutcome; stopped: boolean }>((resolve) => {
      const stop = () => resolve({ outcome: { ok: false, error: { code: 'TIMEOUT', message: 'stopped' } }, stopped: true })
      if (request.signal.aborted) stop()
      request.signal.addEventListener('abort', stop, { once: true })
      timer = setTimeout(stop, timeout)
    })
    return await Promise.race([relay.done.then((done) => ({ outcome: outcomeFromDone(done), stopped: false })), stopped])
  } finally {
    clearTimeout(timer)
    relay.close()
    engine.relaySwitch.attach(undefined)
  }
}

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
      sessions: true,
    },
    async execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
      return (await runOn(newEngine(), request)).outcome
    },
    async openSession(): Promise<BackendSession> {
      const engine = newEngine()
      let alive = true
      return {
        get alive() {
          return alive
        },
        async execute(request) {
          if (!alive) return { ok: false, error: { code: 'BACKEND_CRASHED', message: 'the session was disposed' } }
          const { outcome, stopped } = await runOn(engine, request)
          if (stopped) alive = false
          return outcome
        },
        async memoryUsage() {
          return 0
        },
        async dispose() {
          alive = false
        },
      }
    },
    async dispose() {},
  }
}
