import type { BackendCapabilities } from '@cordon/core/backend'

/**
 * What the ivm backend guarantees. `survivesGuestOom` is false: isolated-vm disposes an
 * isolate that grows past its limit, but one huge allocation (e.g. `new Array(5e7).fill(0)`
 * in a 16 MB isolate) is a fatal V8 out-of-memory error that aborts the whole process.
 * Sync host calls are plain blocking callbacks from the isolate's thread to the main
 * thread, which never waits on the isolate, so they cannot deadlock. `sessions`: a session
 * keeps one isolate, context and guest runtime for its runs (see session.ts).
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
