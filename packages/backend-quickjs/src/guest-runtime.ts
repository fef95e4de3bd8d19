import type { RelayFunctions } from '@cordon/core/backend'
import type { EngineContext, EngineHandle } from './engine-api.js'
import type { HostPromises } from './host-promises.js'
import { newRelayObject, type RelayCallHooks } from './relay-object.js'

/** The guest runtime made in one engine, as the host holds it. No handle here is reachable by guest code. */
export interface GuestRuntimeHandles {
  /** The runtime object, `this` for its methods. */
  readonly self: EngineHandle
  readonly install: EngineHandle
  readonly start: EngineHandle
  readonly settle: EngineHandle
  readonly answer: EngineHandle
  readonly fire: EngineHandle
  readonly stall: EngineHandle
  readonly flushLogs: EngineHandle
  /** The context's own JSON.stringify, taken before any guest code ran (see newRelayObject). */
  readonly quote: EngineHandle
}

export type MadeRuntime = { ok: true; handles: GuestRuntimeHandles } | { ok: false; error: EngineHandle }

/**
 * Step 2 of the guest protocol, done once per engine: calls the runtime factory with the
 * host functions (which then live only in the runtime's closure). A thrown handle is returned for
 * the caller to read and dispose. A host exception propagates: the instance is then unusable.
 */
export function makeGuestRuntime(
  context: EngineContext,
  factory: EngineHandle,
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
  const method = (name: string): EngineHandle => context.getProp(self, name)
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
