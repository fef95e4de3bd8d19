import type { GuestHostFunctions } from '@cordon/core'
import { BOOT_FILENAME, BOOT_SOURCE } from './boot-source.js'
import type { IvmContext, IvmIsolate, IvmModule, IvmReference } from './ivm-types.js'

/**
 * Where the callbacks of one isolate forward to. An isolate is prepared before its run
 * is known (see isolate-pool.ts), so its callbacks are bound to this port, and the run
 * plugs its GuestHost into it. Until then, and after, calls are ignored.
 */
export interface HostPort {
  functions: GuestHostFunctions | undefined
  onAllocationFailure: (() => void) | undefined
  /** A host function threw (a bug on the host side, not the guest's doing). */
  onHostError: ((error: unknown) => void) | undefined
  /** isolated-vm lost control of the isolate (only when catastrophic errors are caught). */
  onCatastrophicError: ((message: string) => void) | undefined
}

/**
 * One fresh isolate with the guest runtime evaluated in it, ready for exactly one run.
 * The References stay in this host-side object; the guest only ever sees plain functions.
 */
export interface GuestVm {
  readonly isolate: IvmIsolate
  readonly context: IvmContext
  readonly memoryMb: number
  readonly port: HostPort
  readonly install: IvmReference
  readonly start: IvmReference
  readonly settle: IvmReference
  readonly fire: IvmReference
  /** CPU time the preparation used, so a run reports only its own. */
  readonly cpuBaseline: bigint
  dispose(): void
}

const ENDED_REPLY = '{"ok":false,"message":"the run has ended"}'

/**
 * `onCatastrophicError`, when given, is registered with isolated-vm so that an error it
 * cannot contain parks the isolate's thread instead of aborting the process; it is called
 * on the main thread, after the run's own handler.
 */
export async function createGuestVm(
  ivm: IvmModule,
  memoryMb: number,
  onCatastrophicError?: (message: string) => void,
): Promise<GuestVm> {
  const port: HostPort = { functions: undefined, onAllocationFailure: undefined, onHostError: undefined, onCatastrophicError: undefined }
  const isolate = new ivm.Isolate(
    onCatastrophicError === undefined
      ? { memoryLimit: memoryMb }
      : {
          memoryLimit: memoryMb,
          onCatastrophicError: (message: string) => {
            port.onCatastrophicError?.(String(message))
            onCatastrophicError(String(message))
          },
        },
  )
  try {
    const context = await isolate.createContext()
    // Tool calls and the final result are `ignored` callbacks (queued to the main thread, in
    // order) so the guest never waits on them: a guest thread parked on a sync callback while
    // the host exits (process.exit, an uncaught exception) deadlocks isolated-vm's exit
    // handler, and a tool-call flood stopped by maxToolCalls left one parked. log and timer
    // stay synchronous: waiting for the host is what keeps a guest from flooding its queue.
    const guarded = <A extends unknown[], R>(fallback: R, fn: (f: GuestHostFunctions, ...args: A) => R, sync = true) =>
      new ivm.Callback(
        (...args: A) => {
          const functions = port.functions
          if (functions === undefined) return fallback
          try {
            return fn(functions, ...args)
          } catch (error) {
            port.onHostError?.(error)
            return fallback
          }
        },
        sync ? undefined : { ignored: true },
      )
    const callbacks = [
      guarded(undefined, (f, level: unknown, message: unknown) => f.log(String(level), String(message))),
      guarded(undefined, (f, id: unknown, name: unknown, args: unknown) => f.call(Number(id), String(name), String(args)), false),
      guarded(ENDED_REPLY, (f, name: unknown, args: unknown) => f.callSync(String(name), String(args))),
      guarded(undefined, (f, id: unknown, delay: unknown) => f.timer(Number(id), Number(delay))),
      guarded(
        undefined,
        (f, status: unknown, payload: unknown, dropped: unknown) =>
          f.done(status === 'ok' || status === 'limit' ? status : 'error', String(payload), Number(dropped)),
        false,
      ),
      new ivm.Callback(() => {
        port.onAllocationFailure?.()
      }),
    ]
    // `reference: true` matters: without it isolated-vm hands out a host function that
    // calls into the isolate synchronously, blocking the main thread while the guest runs.
    const exports = await context.evalClosure(BOOT_SOURCE, callbacks, { filename: BOOT_FILENAME, result: { reference: true } })
    const [install, start, settle, fire] = [0, 1, 2, 3].map((index) => exports.getSync(index, { reference: true })) as [
      IvmReference,
      IvmReference,
      IvmReference,
      IvmReference,
    ]
    exports.release()
    return {
      isolate,
      context,
      memoryMb,
      port,
      install,
      start,
      settle,
      fire,
      cpuBaseline: isolate.cpuTime,
      dispose() {
        port.functions = undefined
        port.onAllocationFailure = undefined
        port.onHostError = undefined
        port.onCatastrophicError = undefined
        // Disposing the isolate invalidates every Reference and Context made from it.
        if (!isolate.isDisposed) isolate.dispose()
      },
    }
  } catch (error) {
    if (!isolate.isDisposed) isolate.dispose()
    throw error
  }
}
