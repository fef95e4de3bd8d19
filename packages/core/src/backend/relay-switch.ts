import type { RelayFunctions } from '../guest/protocol.js'
import type { GuestRelay } from './guest-relay.js'
import { RUN_ENDED_REPLY } from './run-stop.js'

export interface RelaySwitch {
  /** Hand these to the guest runtime factory once, for the engine's whole life. */
  readonly functions: RelayFunctions
  /** Routes the guest's calls to this run's GuestRelay; `undefined` between runs (calls are dropped). */
  attach(relay: GuestRelay | undefined): void
}

/**
 * For in-process backends with sessions: the guest runtime is made once per engine, but each
 * run has its own GuestRelay. The switch forwards to the run in progress, and drops whatever the
 * guest does between runs, so nothing from one run reaches the next run's host bridge.
 */
export function createRelaySwitch(): RelaySwitch {
  let current: GuestRelay | undefined
  const functions: RelayFunctions = {
    log: (entries) => current?.functions.log(entries),
    call: (id, name, argsWire) => current?.functions.call(id, name, argsWire),
    callSync: (name, argsWire) => (current === undefined ? RUN_ENDED_REPLY : current.functions.callSync(name, argsWire)),
    timer: (id, delayMs) => current?.functions.timer(id, delayMs),
    done: (status, payload, logsDropped) => current?.functions.done(status, payload, logsDropped),
  }
  return {
    functions,
    attach(relay) {
      current = relay
    },
  }
}
