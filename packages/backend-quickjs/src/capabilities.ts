import type { BackendCapabilities } from '@cordon/core/backend'

/** What this backend guarantees in worker mode (the default); every entry is explained in the README. */
export const QUICKJS_CAPABILITIES: BackendCapabilities = Object.freeze({
  isolation: 'wasm',
  // Each run gets its own WebAssembly.Memory whose size is capped (see memory-guard.ts).
  memoryLimit: true,
  // The worker blocks on shared memory (Atomics.wait) while the host answers.
  syncHostCalls: true,
  // The guest's heap is a WASM linear memory apart from the host heap.
  survivesGuestOom: true,
  // Time spent inside QuickJS calls.
  cpuTime: true,
  // Peak size of the run's WASM heap.
  heapStats: true,
  // The WASM module imports no socket, fetch or file API: there is no network to reach.
  networkIsolation: true,
  // One engine (WASM instance, runtime, context) kept from run to run; see session.ts.
  sessions: true,
  // Guest code runs in worker threads; a stop is a flag in shared memory the engine polls.
  preemptive: true,
})

/** `thread: 'inline'`: the same, but guest code runs on the host's thread. */
export const INLINE_CAPABILITIES: BackendCapabilities = Object.freeze({
  ...QUICKJS_CAPABILITIES,
  // A guest that never yields holds the host's event loop until its deadline.
  preemptive: false,
})

/**
 * Worker mode in a page that is not cross-origin isolated: a Web Worker cannot receive the page's
 * answer while blocked, and without SharedArrayBuffer there is no memory to read it from.
 */
export const WEB_WORKER_CAPABILITIES: BackendCapabilities = Object.freeze({
  ...QUICKJS_CAPABILITIES,
  // No shared reply line (see shared-reply-line.ts).
  syncHostCalls: false,
})
