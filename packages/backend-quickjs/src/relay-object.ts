import type { RelayFunctions } from '@cordon/core/backend'
import type { EngineContext, EngineHandle } from './engine-api.js'
import { isHostStackOverflow } from './engine-failure.js'
import type { HostPromises } from './host-promises.js'

export interface RelayCallHooks {
  /** A host function failed for a reason that is not the guest's (a bug on the host side). */
  fault(error: unknown): void
  /** Milliseconds spent in a host function, to keep tool time out of the guest's CPU time. */
  spent(ms: number): void
}

/**
 * Builds the plain object handed to the guest runtime factory: QuickJS functions that
 * forward to `functions`. The object only ever lives in the runtime's closure, never on a
 * global. The protocol carries primitives only; anything else is read as a harmless default.
 * The caller disposes the returned handle once the factory has been called.
 */
export function newRelayObject(
  context: EngineContext,
  functions: RelayFunctions,
  promises: HostPromises,
  hooks: RelayCallHooks,
  quote: EngineHandle,
): EngineHandle {
  const str = (handle: EngineHandle | undefined): string =>
    handle !== undefined && context.typeof(handle) === 'string' ? context.getString(handle) : ''
  /**
   * A string the guest made from its own text (console entries), whole: getString reads a C
   * string, which ends at the first NUL. When the lengths differ, the context's own JSON.stringify
   * (`quote`, taken before any guest code ran; on a string it calls nothing the guest can change)
   * escapes it in one call, and the host parses that.
   */
  const wholeStr = (handle: EngineHandle | undefined): string => {
    if (handle === undefined || context.typeof(handle) !== 'string') return ''
    const text = context.getString(handle)
    if (context.getProp(handle, 'length').consume((length) => context.getNumber(length)) === text.length) return text
    const quoted = context.callFunction(quote, context.undefined, handle)
    if (quoted.error) {
      quoted.error.dispose()
      return text
    }
    return JSON.parse(quoted.value.consume((value) => context.getString(value))) as string
  }
  const num = (handle: EngineHandle | undefined): number =>
    handle !== undefined && context.typeof(handle) === 'number' ? context.getNumber(handle) : Number.NaN

  const impl: Partial<Record<keyof RelayFunctions, (...args: EngineHandle[]) => EngineHandle | undefined>> = {
    log: (entries) => void functions.log(wholeStr(entries)),
    call: (id, name, args) => void functions.call(num(id), str(name), str(args)),
    // The promise's handle is returned (and freed by the caller after it is copied to the guest);
    // its resolving functions stay in `promises` until the answer comes or the run ends.
    // Both arguments are strings the runtime made (a tool's name, wire text): read without the
    // type check, two engine calls fewer on every tool call.
    callPromise: (name, args) => {
      const { id, deferred } = promises.make()
      functions.call(id, context.getString(name), context.getString(args))
      return deferred.handle
    },
    callSync: (name, args) => context.newString(functions.callSync(str(name), str(args))),
    timer: (id, delay) => void functions.timer(num(id), num(delay)),
    done: (status, payload, dropped) => void functions.done(str(status) as 'ok' | 'error' | 'limit', str(payload), num(dropped)),
  }

  const object = context.newObject()
  for (const name of Object.keys(impl) as (keyof RelayFunctions)[]) {
    const forward = impl[name]!
    const handle = context.newFunction(name, (...args) => {
      const started = performance.now()
      try {
        return forward(...args)
      } catch (error) {
        // The guest recursed to the edge of the host's stack: give it the error V8 would.
        // quickjs-emscripten turns a thrown { name, message } into an error of the guest's realm.
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        if (isHostStackOverflow(error)) throw { name: 'RangeError', message: 'Maximum call stack size exceeded' }
        // Anything else is a host bug: end the run, and tell the guest nothing about the host.
        hooks.fault(error)
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw { name: 'Error', message: 'the sandbox host failed' }
      } finally {
        hooks.spent(performance.now() - started)
      }
    })
    context.setProp(object, name, handle)
    handle.dispose()
  }
  return object
}
