import { PRIMORDIALS_SOURCE } from '@cordon/core/backend'
import { createLengthFallbacks } from './guest/length-fallbacks.js'
import { guardHugeLengths } from './guest/length-guard.js'

/**
 * Longest length a wrapped built-in walks in C. Measured on a loaded 2-core VM: 100–700 ns per
 * index for the slowest walks (sparse `includes`, `toSorted`, JSON-like joins), so at most
 * ~45 ms, well inside the 500 ms past the deadline a run may take, even on a machine 10× slower.
 */
export const NATIVE_LENGTH_LIMIT = 2 ** 16

/** `sort` with the default comparator costs ~0.8 µs per comparison, n·log n of them: 4096 items take ~40 ms. */
export const NATIVE_SORT_LIMIT = 2 ** 12

/** Script evaluated in a fresh context before the guest runtime: see length-guard.ts. */
export const LENGTH_GUARD_SOURCE = `(${guardHugeLengths.toString()})(${PRIMORDIALS_SOURCE}, ${NATIVE_LENGTH_LIMIT}, ${NATIVE_SORT_LIMIT}, ${createLengthFallbacks.toString()})`

export const LENGTH_GUARD_FILENAME = 'cordon-length-guard'
