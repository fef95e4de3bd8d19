import type { BackendCapabilities } from '@cordon/core/backend'
import type { EngineName } from '../engine-child/engine-init.js'
import type { NetworkIsolationMode } from '../options.js'

/** What an engine child backend guarantees; every entry is explained in the README. */
export function engineCapabilities(engine: EngineName, networkIsolation: NetworkIsolationMode): BackendCapabilities {
  return Object.freeze({
    isolation: engine === 'isolated-vm' ? 'process+v8-isolate' : 'process+wasm',
    memoryLimit: true,
    // A blocking call would need the child to block on its pipe while other runs use it: not yet.
    syncHostCalls: false,
    // An engine that runs out of memory takes at most its own child down; the host never.
    survivesGuestOom: true,
    cpuTime: true,
    heapStats: true,
    // QuickJS has no network at all; an escape from an isolate lands in a child that has one
    // unless the namespace is required.
    networkIsolation: engine === 'quickjs' || networkIsolation === 'required',
    sessions: true,
    preemptive: true,
  })
}
