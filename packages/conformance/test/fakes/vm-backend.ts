/**
 * The one fake backend of the repository: an in-process `node:vm` backend built on the kit,
 * used by the conformance suite's self-tests and by core's own tests (packages/core/test
 * imports this file). node:vm is NOT a security boundary: this backend is not expected to
 * pass the isolation group. Its switches turn it into deliberately broken backends (see
 * broken-backends.ts). It imports core's source by path, so both suites run it without a
 * build of @cordon/core. It stays under this package: the suite's host-path checks recognise
 * its frames by this package's directory (see "known limitations" in vm-backend.test.ts).
 */
import vm from 'node:vm'
import { GUEST_RUNTIME_SOURCE, createGuestRelay, createRelaySwitch, outcomeFromDone } from '../../../core/src/backend/index.js'
import type {
  BackendSession,
  ExecuteOutcome,
  ExecuteRequest,
  GuestRuntime,
  RelaySwitch,
  SandboxBackend,
} from '../../../core/src/backend/index.js'

export interface VmBackendOptions {
  name?: string
  /** Broken: every run reuses one context, so globals leak from run to run. */
  reuseContext?: boolean
  /** Broken: ignores the run's signal, so a guest waiting on a tool or timer never ends. */
  ignoreDeadline?: boolean
  /** Broken: puts host functions on the guest global and hands tool results over as host objects. */
  exposeHost?: boolean
  /** Broken: keeps this many bytes of host memory alive for every run. */
  leakBytesPerRun?: number
  /** Broken: every session shares one context, so state crosses sessions. */
  shareSessionContext?: boolean
  /** Broken: copies the host's environment variables into a guest global. */
  exposeEnv?: boolean
  /** Broken: hands the guest the host's own, unguarded fetch. */
  exposeFetch?: boolean
}

/** A session's engine: one context, one guest runtime (made on the first run), reached through a switch. */
interface VmSession {
  context: vm.Context
  relaySwitch: RelaySwitch
  runtime?: GuestRuntime
  alive: boolean
}

const ENTRY_SLOT = '__vmBackendEntry'
const ENTER = new vm.Script(`(() => { const f = globalThis.${ENTRY_SLOT}; delete globalThis.${ENTRY_SLOT}; f() })()`)

class GuestTimeout extends Error {}

export function createVmBackend(options: VmBackendOptions = {}): SandboxBackend {
  let shared: vm.Context | undefined
  let disposed = false
  const leaked: Uint8Array[] = []

  // A null-prototype sandbox: with `{}`, `globalThis.constructor` would be the host's Object.
  const newContext = () => {
    const context = vm.createContext(Object.create(null) as object, { microtaskMode: 'afterEvaluate' })
    vm.runInContext(STACK_FORMAT_SOURCE, context)
    return context
  }

  let sharedSession: VmSession | undefined
  /** How long the runtime may take to send the entries a stopped guest still holds. */
  const FLUSH_TIMEOUT_MS = 100

  async function execute(request: ExecuteRequest, session?: VmSession): Promise<ExecuteOutcome> {
    if (disposed) return { ok: false, error: { code: 'BACKEND_UNAVAILABLE', message: 'the vm backend was disposed' } }
    if (options.leakBytesPerRun) leaked.push(new Uint8Array(options.leakBytesPerRun).fill(1))
    const context = session?.context ?? (options.reuseContext ? (shared ??= newContext()) : newContext())
    const relay = createGuestRelay(request)
    session?.relaySwitch.attach(relay)

    /** Runs `fn` inside the context; the time left until the deadline bounds it, microtasks included. */
    const enter = (fn: () => void): void => {
      const timeout = Math.max(1, Math.ceil(request.deadline - Date.now()))
      ;(context as Record<string, unknown>)[ENTRY_SLOT] = fn
      try {
        ENTER.runInContext(context, { timeout })
      } catch (error) {
        if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new GuestTimeout('timed out')
        throw error
      }
    }

    return new Promise<ExecuteOutcome>((resolve) => {
      let ended = false
      const end = (outcome: ExecuteOutcome) => {
        if (ended) return
        ended = true
        relay.close()
        session?.relaySwitch.attach(undefined)
        request.signal.removeEventListener('abort', onAbort)
        resolve(outcome)
      }
      // Stopped from outside: a session's context may be half-way through guest code.
      const stopSession = () => {
        if (session !== undefined) session.alive = false
      }
      const onAbort = () => {
        stopSession()
        end({ ok: false, error: { code: 'ABORTED', message: 'the run was stopped' } })
      }
      // After each entry the context's queue is empty: nothing pending on the host means a deadlock.
      let started = false
      const guard = (fn: () => void) => {
        if (ended) return
        try {
          enter(fn)
          if (started && !ended && relay.stalled()) enter(() => runtime.stall())
        } catch (error) {
          if (error instanceof GuestTimeout) {
            stopSession()
            flushAfterStop()
          }
          end(failure(error))
        }
      }
      // The deadline cut the guest's turn short: the entries it holds still go out, in a bounded call.
      const flushAfterStop = () => {
        ;(context as Record<string, unknown>)[ENTRY_SLOT] = () => runtime.flushLogs()
        try {
          ENTER.runInContext(context, { timeout: FLUSH_TIMEOUT_MS })
        } catch {
          // A guest that broke its console keeps what it holds.
        }
      }
      if (!options.ignoreDeadline) {
        if (request.signal.aborted) return onAbort()
        request.signal.addEventListener('abort', onAbort)
      }
      void relay.done.then((done) => end(outcomeFromDone(done)))

      let runtime: GuestRuntime
      let main: () => unknown
      try {
        const makeRuntime = () => vm.runInContext(GUEST_RUNTIME_SOURCE, context) as (host: unknown) => GuestRuntime
        runtime =
          session === undefined ? makeRuntime()(relay.functions) : (session.runtime ??= makeRuntime()(session.relaySwitch.functions))
        runtime.install(request.setup)
        main = vm.runInContext(request.script, context, { filename: request.filename }) as () => unknown
        if (options.exposeHost) exposeHost(context, request, () => setTimeout(() => guard(() => {}), 0))
        if (options.exposeFetch) (context as { fetch?: unknown }).fetch = globalThis.fetch
        if (options.exposeEnv) vm.runInContext(`globalThis.hostEnv = ${JSON.stringify({ ...process.env })}`, context)
      } catch (error) {
        return end(failure(error))
      }
      relay.connect({
        settle: (id, ok, payload) => {
          // A fake that ignores its stop keeps waiting on calls the host ended: rejecting them would
          // reject guest promises nobody awaits any more, which node:vm reports to the host process.
          if (options.ignoreDeadline && request.signal.aborted && !ok) return
          guard(() => runtime.settle(id, ok, payload))
        },
        fire: (id) => guard(() => runtime.fire(id)),
      })
      started = true
      guard(() => runtime.start(main))
    })
  }

  return {
    specificationVersion: 'v1',
    name: options.name ?? 'vm-reference',
    // `isolation` is a lie: node:vm isolates nothing. This backend only tests the suite.
    capabilities: {
      isolation: 'v8-isolate',
      memoryLimit: false,
      syncHostCalls: true,
      survivesGuestOom: false,
      cpuTime: false,
      heapStats: false,
      networkIsolation: false,
      sessions: true,
      // It runs guest code on the host's thread.
      preemptive: false,
    },
    execute: (request) => execute(request),
    async openSession(): Promise<BackendSession> {
      const fresh = (): VmSession => ({ context: newContext(), relaySwitch: createRelaySwitch(), alive: true })
      const session = options.shareSessionContext ? (sharedSession ??= fresh()) : fresh()
      return {
        get alive() {
          return session.alive
        },
        execute: async (request) => {
          if (!session.alive) return { ok: false, error: { code: 'BACKEND_CRASHED', message: 'the session is gone' } }
          return execute(request, session)
        },
        memoryUsage: async () => 0,
        async dispose() {
          session.alive = options.shareSessionContext === true
        },
      }
    },
    async dispose() {
      disposed = true
      shared = undefined
    },
  }
}

/**
 * Node formats the stacks of a vm context's errors with the outer realm's code, which converts the
 * guest's call sites with '+' (Symbol.toPrimitive) and calls the guest's Function.prototype.call.
 * Like the subprocess backend, this fake gives its contexts a formatter of their own that uses
 * functions captured before any guest code runs. That also keeps the errors made while a stack
 * is formatted in the guest's realm: with Node's formatter, four attacks of the corpus (species
 * executors at the stack limit, Symbol-named errors, WebAssembly JSTag catches, Proxy toString
 * traps) were handed errors of the host's realm.
 */
const STACK_FORMAT_SOURCE = `(function () {
  'use strict'
  var apply = Reflect.apply
  var errorToString = Error.prototype.toString
  Object.defineProperty(Error, 'prepareStackTrace', { value: function (e, sites) { return sites }, writable: true, configurable: true })
  var siteToString = Object.getPrototypeOf(new Error().stack[0]).toString
  Object.defineProperty(Error, 'prepareStackTrace', {
    value: function prepareStackTrace(error, sites) {
      var out
      try { out = apply(errorToString, error, []) } catch (e) { out = 'Error' }
      for (var i = 0; i < sites.length; i++) out += '\\n    at ' + apply(siteToString, sites[i], [])
      return out
    },
    writable: true,
    configurable: true,
  })
})()`

function failure(error: unknown): ExecuteOutcome {
  if (error instanceof GuestTimeout) return { ok: false, error: { code: 'TIMEOUT', message: 'the run took longer than timeoutMs' } }
  const e = error as { name?: unknown; message?: unknown; stack?: unknown }
  const name = typeof e?.name === 'string' ? e.name : undefined
  const message = typeof e?.message === 'string' ? e.message : String(error)
  if (name === 'SyntaxError') return { ok: false, error: { code: 'SYNTAX_ERROR', name, message } }
  return { ok: false, error: { code: 'INTERNAL', message: `vm backend: ${message}` } }
}

/** The broken part of `exposeHost`: host functions where the guest can reach them. */
function exposeHost(context: vm.Context, request: ExecuteRequest, drainGuestJobs: () => void): void {
  const global = context as Record<string, unknown>
  global.hostNow = () => Date.now()
  for (const tool of request.tools) {
    if (tool.sync) continue
    const path = tool.name.split('.')
    const leaf = path.pop() as string
    let target = global
    for (const key of path) target = target[key] as Record<string, unknown>
    const guestFunction = target[leaf] as (args: unknown) => Promise<unknown>
    // The host callback's job runs on the host's queue; the guest's own jobs then need a drain.
    target[leaf] = (args: unknown) =>
      guestFunction(args).then(
        (value) => {
          drainGuestJobs()
          return structuredClone(value)
        },
        (error: unknown) => {
          drainGuestJobs()
          throw error
        },
      )
  }
}
