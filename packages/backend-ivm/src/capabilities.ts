import type { BackendCapabilities } from '@cordon/core/backend'

/**
 * What the ivm backend guarantees. `survivesGuestOom` is false although the host survives every
 * out-of-memory path we know of: a V8 out-of-memory error isolated-vm cannot contain is caught by
 * its catastrophic-error handler (always registered, see guest-vm.ts), but the lost isolate's
 * thread and heap stay in the process until it ends and the process can no longer exit by
 * itself; and V8 has fatal errors no handler sees (the known ones are refused up front, see
 * guest/hardening.ts). "Can never take the host down" is a process or WebAssembly boundary's
 * promise, not this one's. Sync host calls are plain blocking callbacks from the isolate's
 * thread to the main thread, which never waits on the isolate, so they cannot deadlock.
 * `sessions`: a session keeps one isolate, context and guest runtime for its runs (see session.ts).
 */
export const IVM_CAPABILITIES: BackendCapabilities = Object.freeze({
  isolation: 'v8-isolate',
  memoryLimit: true,
  syncHostCalls: true,
  survivesGuestOom: false,
  cpuTime: true,
  heapStats: true,
  networkIsolation: false,
  sessions: true,
  // The isolate runs on a thread of its own; disposing it from the host stops any guest code.
  preemptive: true,
})
