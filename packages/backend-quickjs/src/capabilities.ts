import type { BackendCapabilities } from '@cordon/core/backend'

/** What this backend guarantees; every entry is explained in the README. */
export const QUICKJS_CAPABILITIES: BackendCapabilities = Object.freeze({
  isolation: 'wasm',
  // Each run gets its own WebAssembly.Memory whose size is capped (see memory-guard.ts).
  memoryLimit: true,
  // The engine runs on the host thread, so a synchronous tool is just a nested call.
  syncHostCalls: true,
  // The guest's heap is a WASM linear memory apart from the host heap.
  survivesGuestOom: true,
  // Time spent inside QuickJS calls, which run on the host thread.
  cpuTime: true,
  // Peak size of the run's WASM heap.
  heapStats: true,
  // The WASM module imports no socket, fetch or file API: there is no network to reach.
  networkIsolation: true,
  // One engine (WASM instance, runtime, context) kept from run to run; see session.ts.
  sessions: true,
})
