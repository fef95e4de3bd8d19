import type { IvmHeapStatistics, IvmIsolate } from './ivm-types.js'

/**
 * How long the end-of-run reading of the isolate's heap may take before the run does without it
 * (and so without the proof of a huge string the guest already dropped). An idle isolate answers
 * in well under a millisecond, but on a loaded machine its task, or the host's turn to see the
 * answer, can come 50 ms late: CI once let a 256 MB string in a 32 MB run end OK that way. Only a
 * guest that keeps its isolate busy after its result (a microtask loop) waits this long for it.
 */
export const HEAP_READ_WAIT_MS = 1_000

/** How often the heap is sampled while a run is in flight (between the guest's tasks). */
export const HEAP_SAMPLE_MS = 100

const MB = 1024 * 1024

/**
 * Whether the isolate's heap proves the guest went over `memoryMb`, uncollected garbage included.
 *
 * Why it is needed: V8 places any object too big for a regular page in the young large-object
 * space, and always admits the first one there whatever its size ("allocation for the first
 * object must succeed independent from the capacity"). One flat string can so be ~1 GB in a
 * 32 MB isolate, and isolated-vm only looks at the heap on a full GC, which never comes if the
 * guest drops the string before allocating more. The string stays counted in
 * `used_heap_size` until the next GC, so a reading taken before one still shows it.
 *
 * Why this threshold: V8 keeps everything else (old generation, young semispaces, garbage in
 * them) within `heap_size_limit`; past it, isolated-vm raises V8's limit only once the live
 * heap itself is over. So more than `heap_size_limit + memoryMb` means a single object bigger
 * than `memoryMb`, live when it was allocated — never garbage churn near the limit.
 */
export function provesOverLimit(stats: IvmHeapStatistics, memoryMb: number): boolean {
  return stats.used_heap_size > stats.heap_size_limit + memoryMb * MB
}

/** The isolate's heap statistics, or undefined if it is disposed or busy for HEAP_READ_WAIT_MS. */
export async function readHeap(isolate: IvmIsolate): Promise<IvmHeapStatistics | undefined> {
  return withinWait(isolate.getHeapStatistics())
}

/** `reading` (already requested), or undefined if it fails or takes longer than HEAP_READ_WAIT_MS. */
export async function withinWait(reading: Promise<IvmHeapStatistics | undefined>): Promise<IvmHeapStatistics | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, HEAP_READ_WAIT_MS, undefined)
  })
  try {
    return await Promise.race([reading, late])
  } catch {
    // Disposed (memory limit, a stop): no reading.
    return undefined
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Samples the heap every HEAP_SAMPLE_MS while a run is in flight and calls `onOver` once a
 * sample proves the guest over `memoryMb`: a guest holding one huge string while it awaits
 * tools or timers is stopped then rather than at the end. isolated-vm answers between the
 * guest's tasks, so one reading at a time. Returns how to stop sampling.
 *
 * Also calls `onOver` when the isolate turns out disposed by isolated-vm itself, which it does
 * at the memory limit: the run's pending call normally reports that at once, but not while the
 * guest is inside a native call V8 cannot interrupt (a built-in walking a huge array-like),
 * which goes on after the disposal and may never return.
 */
export function sampleHeap(isolate: IvmIsolate, memoryMb: number, onOver: () => void): () => void {
  let pending = false
  let stopped = false
  const timer = setInterval(() => {
    if (isolate.isDisposed) {
      if (!stopped) onOver()
      return
    }
    if (pending) return
    pending = true
    isolate.getHeapStatistics().then(
      (stats) => {
        pending = false
        if (!stopped && provesOverLimit(stats, memoryMb)) onOver()
      },
      () => {
        pending = false
      },
    )
  }, HEAP_SAMPLE_MS)
  return () => {
    stopped = true
    clearInterval(timer)
  }
}
