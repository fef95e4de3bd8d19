/**
 * Child-side memory checks. `--max-old-space-size` caps the V8 heap, but ArrayBuffers live
 * outside it; these checks catch a guest holding too much of them at each checkpoint (after
 * job-queue drains, those after tool results at most every 5 ms, and at the end), and an
 * allocation failure the guest left uncaught.
 * A caught failure holds nothing: the allocation guard (allocation-guard-source.ts) reports
 * it as it happens. The host's RSS watchdog and RLIMIT_DATA cover the time between checkpoints.
 */

/** Allocation failures V8 reports as catchable RangeErrors once the process is out of memory. */
const ALLOCATION_FAILURE = /Array buffer allocation failed|could not allocate memory|Out of memory/i

export function offHeapOverBudget(memoryBytes: number): boolean {
  return process.memoryUsage().arrayBuffers > memoryBytes
}

/** A reason to end the run with MEMORY_LIMIT instead of what the guest reported, if any. */
export function memoryVerdict(usage: NodeJS.MemoryUsage, memoryBytes: number, status: string, payload: string): string | undefined {
  if (usage.arrayBuffers > memoryBytes) return `the guest holds more than ${memoryBytes} bytes of ArrayBuffers`
  if (status !== 'error') return undefined
  try {
    const thrown = JSON.parse(payload) as { name?: unknown; message?: unknown }
    if (thrown.name === 'RangeError' && typeof thrown.message === 'string' && ALLOCATION_FAILURE.test(thrown.message)) {
      return `the guest ran out of memory: ${thrown.message}`
    }
  } catch {
    // Not JSON: the guest runtime always sends JSON here, so there is nothing to read.
  }
  return undefined
}
