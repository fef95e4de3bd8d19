import type { RelayFunctions } from '@cordon/core/backend'
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core'
import type { HostPromises } from './host-promises.js'
import { newRelayObject, type RelayCallHooks } from './relay-object.js'

/** The guest runtime made in one engine, as the host holds it. No handle here is reachable by guest code. */
export interface GuestRuntimeHandles {
  /** The runtime object, `this` for its methods. */
  readonly self: QuickJSHandle
  readonly install: QuickJSHandle
  readonly start: QuickJSHandle
  readonly settle: QuickJSHandle
  readonly answer: QuickJSHandle
  readonly fire: QuickJSHandle
  readonly stall: QuickJSHandle
  readonly flushLogs: QuickJSHandle
  /** The context's own JSON.stringify, taken before any guest code ran (see newRelayObject). */
  readonly quote: QuickJSHandle
}

export type MadeRuntime = { ok: true; handles: GuestRuntimeHandles } | { ok: false; error: QuickJSHandle }

/**
 * Step 2 of the guest protocol, done once per engine: calls the runtime factory with the
 * host functions (which then live only in the runtime's closure). A thrown handle is returned for
 * the caller to read and dispose. A host exception propagates: the instance is then unusable.
 */
export function makeGuestRuntime(
  context: QuickJSContext,
  factory: QuickJSHandle,
  functions: RelayFunctions,
  promises: HostPromises,
  hooks: RelayCallHooks,
): MadeRuntime {
  const json = context.getProp(context.global, 'JSON')
  const quote = context.getProp(json, 'stringify')
  json.dispose()
  const relayObject = newRelayObject(context, functions, promises, hooks, quote)
  const made = context.callFunction(factory, context.undefined, relayObject)
  relayObject.dispose()
  if (made.error) {
    quote.dispose()
    return { ok: false, error: made.error }
  }
  const self = made.value
  const method = (name: string): QuickJSHandle => context.getProp(self, name)
  return {
    ok: true,
    handles: {
      self,
      install: method('install'),
      start: method('start'),
      settle: method('settle'),
      answer: method('answer'),
      fire: method('fire'),
      stall: method('stall'),
      flushLogs: method('flushLogs'),
      quote,
    },
  }
}

export function disposeGuestRuntime(handles: GuestRuntimeHandles): void {
  for (const handle of [
    handles.quote,
    handles.flushLogs,
    handles.fire,
    handles.stall,
    handles.answer,
    handles.settle,
    handles.start,
    handles.install,
    handles.self,
  ])
    if (handle.alive) handle.dispose()
}
