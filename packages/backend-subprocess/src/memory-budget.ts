/**
 * How `memoryMb` becomes limits on a child. The V8 heap is capped exactly by Node's flags;
 * memory outside it (ArrayBuffers, wasm memories) is bounded by the host's RSS watchdog and,
 * where `prlimit` works, by a hard RLIMIT_DATA ceiling above that.
 */
const MB = 1024 * 1024

/** Young-generation semi-space: small heaps get a small nursery so it stays inside the budget. */
export function semiSpaceMb(memoryMb: number): number {
  return Math.min(16, Math.max(1, Math.floor(memoryMb / 16)))
}

export function nodeMemoryFlags(memoryMb: number): string[] {
  return [`--max-old-space-size=${memoryMb}`, `--max-semi-space-size=${semiSpaceMb(memoryMb)}`]
}

/**
 * Resident-memory growth over the idle child after which the watchdog ends the run: the heap
 * and its young generation, 16 MiB of engine overhead, and the compiler's scratch memory for
 * the program itself (a few bytes per source character, freed after compiling).
 */
export function rssAllowanceBytes(memoryMb: number, scriptChars: number): number {
  return (memoryMb + 3 * semiSpaceMb(memoryMb) + 16) * MB + 8 * scriptChars
}

/** RLIMIT_DATA for a child whose idle data segment is `baselineKb`: room for the heap and as much again off-heap. */
export function dataLimitBytes(memoryMb: number, baselineKb: number): number {
  return baselineKb * 1024 + (2 * memoryMb + 3 * semiSpaceMb(memoryMb) + 64) * MB
}

/**
 * The largest frame the host accepts from a child during a run: a value, or a batch of console
 * entries of at most `logBatchChars` (JSON escaping can grow text six-fold).
 */
export function frameCapBytes(maxOutputBytes: number, logBatchChars: number): number {
  return Math.min(2 ** 31, 6 * Math.max(maxOutputBytes, logBatchChars) + 64 * 1024)
}
