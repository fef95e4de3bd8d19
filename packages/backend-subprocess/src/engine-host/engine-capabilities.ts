import type { BackendCapabilities } from '@cordon/core/backend'
import type { EngineName } from '../engine-child/engine-init.js'
import type { NetworkIsolationMode } from '../options.js'

/** What an engine child backend guarantees; every entry is explained in the README. */
export function engineCapabilities(engine: EngineName, networkIsolation: NetworkIsolationMode): BackendCapabilities {
  return Object.freeze({
    isolation: engine === 'isolated-vm' ? 'process+v8-isolate' : 'process+wasm',
    memoryLimit: true,
    // The child's thread blocks on its pipe for the answer (the child's other runs wait meanwhile).
    syncHostCalls: true,
    // An engine that runs out of memory takes at most its own child down; the host never.
    survivesGuestOom: true,
    cpuTime: true,
    heapStats: true,
    // QuickJS has no network at all; an escape from an isolate lands in a child that has one
    // unless the namespace is required.
    networkIsolation: engine === 'quickjs' || networkIsolation === 'required',
    sessions: true,
    preemptive: true,
    // The isolate's inspector, relayed over the child's channel (core's inspector-relay.ts); the
    // debugger's socket stays on the host, the child's lock-down as it is. Not with V8 14 (Node
    // 26), where connecting a session aborts the process (see backend-ivm's capabilities.ts); the
    // children run this Node unless `nodePath` says otherwise.
    ...(engine === 'isolated-vm' && v8Major() < 14 ? { inspector: true } : {}),
  })
}

function v8Major(): number {
  return Number.parseInt(process.versions.v8 ?? '0', 10)
}
