import { RUN_ENDED_REPLY, createRelaySwitch, type GuestRelay, type RelaySwitch } from '@cordon/core/backend'
import { compileBootScript } from './boot-script.js'
import type { IvmContext, IvmIsolate, IvmModule, IvmReference } from './ivm-types.js'
import { forgetIsolate, trackIsolate } from './live-isolates.js'
import { closeInspectorSessions } from './engine-inspector.js'
import { LogShareReader } from './log-share.js'
import { startWarmUp, warmUp, type WarmUp } from './warm-up.js'

/** What the run in progress wants to hear about besides the guest protocol. */
export interface RunHooks {
  onAllocationFailure(): void
  /** A host function threw (a bug on the host side, not the guest's doing). */
  onHostError(error: unknown): void
  /** isolated-vm lost control of the isolate (a V8 out-of-memory error it could not contain). */
  onCatastrophicError(message: string): void
}

/**
 * Where the callbacks of one isolate forward to. The isolate and its guest runtime are made
 * once (before the run is known, see pool.ts, and once for a whole session), so the
 * callbacks are bound to this port and each run plugs its GuestRelay and hooks in. Between
 * runs everything the guest sends is dropped.
 */
export interface RelayPort {
  attach(relay: GuestRelay, hooks: RunHooks): void
  detach(): void
}

/**
 * One isolate with the guest runtime evaluated in it: ready for one run, or for the runs of
 * a session one after another. The References stay in this host-side object; the guest only
 * ever sees plain functions.
 */
export interface GuestVm {
  readonly isolate: IvmIsolate
  readonly context: IvmContext
  readonly memoryMb: number
  readonly port: RelayPort
  readonly install: IvmReference
  readonly start: IvmReference
  readonly settle: IvmReference
  readonly fire: IvmReference
  readonly stall: IvmReference
  /**
   * Hands the console entries the guest stored and has not sent yet to the run's relay: for a run
   * stopped from outside, before the isolate goes (the guest may be stuck in a loop, or gone).
   */
  drainLogs(): void
  /** Detaches the port and disposes the isolate, which stops whatever it executes. Idempotent. */
  dispose(): void
}

/**
 * Every isolate is created with isolated-vm's catastrophic-error handler: without one, a V8
 * out-of-memory error isolated-vm cannot contain aborts the whole process. With it, isolated-vm
 * parks the isolate's thread for good and calls the handler on the main thread, where the run in
 * the isolate is ended (its calls into the isolate never return), the isolate is disposed so that
 * nothing reaches it again, and `onLost` is told.
 */
export async function createGuestVm(
  ivm: IvmModule,
  memoryMb: number,
  onLost: (message: string) => void,
  options: { inspector?: boolean } = {},
): Promise<GuestVm> {
  const inspector = options.inspector === true
  const relaySwitch: RelaySwitch = createRelaySwitch()
  const logShare = new LogShareReader()
  let warming: WarmUp | undefined = startWarmUp()
  let hooks: RunHooks | undefined
  let disposing = false
  const port: RelayPort = {
    attach(relay, next) {
      // What an earlier program (the warm-up) stored belongs to no run.
      logShare.take(true)
      relaySwitch.attach(relay)
      hooks = next
    },
    detach() {
      relaySwitch.attach(undefined)
      hooks = undefined
    },
  }
  const isolate: IvmIsolate = new ivm.Isolate({
    memoryLimit: memoryMb,
    ...(inspector ? { inspector } : {}),
    onCatastrophicError: (message: string) => {
      const text = String(message)
      hooks?.onCatastrophicError(text)
      try {
        // isolated-vm may have disposed it already (it hit the limit before V8 gave up). Its
        // thread is lost, so inspector sessions (engine-inspector.ts) cannot be ended in order first.
        if (!isolate.isDisposed) isolate.dispose()
      } catch {
        // Already disposed meanwhile: retired either way.
      }
      onLost(text)
    },
  })
  trackIsolate(isolate)
  try {
    const context = await isolate.createContext(inspector ? { inspector } : undefined)
    // Tool calls and the final result are `ignored` callbacks (queued to the main thread, in
    // order) so the guest never waits on them: a guest thread parked on a sync callback while
    // the host exits (process.exit, an uncaught exception) deadlocks isolated-vm's exit
    // handler, and a tool-call flood stopped by maxToolCalls left one parked. log and timer
    // stay synchronous: waiting for the host is what keeps a guest from flooding its queue.
    // The switch drops calls between runs (callSync then answers that the run has ended).
    const functions = relaySwitch.functions
    const guarded = <A extends unknown[], R>(fallback: R, fn: (f: typeof functions, ...args: A) => R, sync = true) =>
      new ivm.Callback(
        (...args: A) => {
          try {
            return fn(functions, ...args)
          } catch (error) {
            hooks?.onHostError(error)
            return fallback
          }
        },
        sync ? undefined : { ignored: true },
      )
    const callbacks = [
      // The guest waits in this callback: the stored entries go first (in the order written) and
      // their space is freed; `entries` are what did not fit there (or nothing: a plain flush).
      guarded(undefined, (f, entries: unknown) => {
        const stored = logShare.take(true)
        if (stored !== '') f.log(stored)
        if (entries !== '') f.log(String(entries))
      }),
      guarded(undefined, (f, id: unknown, name: unknown, args: unknown) => f.call(Number(id), String(name), String(args)), false),
      guarded(RUN_ENDED_REPLY, (f, name: unknown, args: unknown) => f.callSync(String(name), String(args))),
      guarded(undefined, (f, id: unknown, delay: unknown) => f.timer(Number(id), Number(delay))),
      guarded(
        undefined,
        (f, status: unknown, payload: unknown, dropped: unknown) => {
          // The warm-up's result is its own: it never reaches a run, however late it is delivered.
          if (warming !== undefined) return warming.done()
          f.done(status === 'ok' || status === 'limit' ? status : 'error', String(payload), Number(dropped))
        },
        false,
      ),
      new ivm.Callback(() => {
        hooks?.onAllocationFailure()
      }),
      memoryMb,
      new ivm.ExternalCopy(logShare.share).copyInto({ release: true }),
    ]
    // `reference: true` matters: without it isolated-vm hands out a host function that
    // calls into the isolate synchronously, blocking the main thread while the guest runs.
    const boot = await (await compileBootScript(ivm, isolate)).run(context, { reference: true, release: true })
    const exports = (await boot.apply(undefined, callbacks, { result: { reference: true } })) as IvmReference
    boot.release()
    const [install, start, settle, fire, stall] = [0, 1, 2, 3, 4].map((index) => exports.getSync(index, { reference: true })) as [
      IvmReference,
      IvmReference,
      IvmReference,
      IvmReference,
      IvmReference,
    ]
    exports.release()
    await warmUp(isolate, context, install, start, warming)
    warming = undefined
    return {
      isolate,
      context,
      memoryMb,
      port,
      install,
      start,
      settle,
      fire,
      stall,
      drainLogs() {
        const stored = logShare.take(false)
        if (stored !== '') relaySwitch.functions.log(stored)
      },
      dispose() {
        port.detach()
        forgetIsolate(isolate)
        // Disposing the isolate invalidates every Reference and Context made from it.
        if (isolate.isDisposed || disposing) return
        const closing = closeInspectorSessions(isolate)
        if (closing === undefined) return isolate.dispose()
        // Inspector sessions end first (engine-inspector.ts); meanwhile nothing reaches the host.
        disposing = true
        void closing.then(() => {
          if (!isolate.isDisposed) isolate.dispose()
        })
      },
    }
  } catch (error) {
    forgetIsolate(isolate)
    if (!isolate.isDisposed) isolate.dispose()
    throw error
  }
}
