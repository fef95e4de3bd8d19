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
/**
 * Whether isolated-vm's inspector works with this process's V8. With V8 14 (Node 26) V8 aborts the
 * process when isolated-vm connects a session from the host's thread ("Check failed:
 * IsCreationThread()", isolated-vm 7.0.1), so there the backend declares no inspector and core
 * refuses `inspector` and `cpuProfile` with UNSUPPORTED. V8 13 (Node 24) and older work.
 */
export const INSPECTOR_WORKS = Number.parseInt(process.versions.v8 ?? '0', 10) < 14

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

/**
 * With `inspector: true` (options.ts): a run's isolate can be made with V8's inspector (never a
 * pooled one, see ivm-backend.ts). Engine children of the subprocess backend serve inspected runs
 * whatever this says: there a failure of isolated-vm's inspector ends only the child.
 */
export function ivmCapabilities(inspector: boolean): BackendCapabilities {
  return inspector && INSPECTOR_WORKS ? Object.freeze({ ...IVM_CAPABILITIES, inspector: true }) : IVM_CAPABILITIES
}
