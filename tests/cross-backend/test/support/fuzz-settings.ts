/**
 * fast-check settings shared by the fuzz tests. Runs are few because every sample runs on
 * three engines (a subprocess run costs a Node child); CORDON_FUZZ_RUNS multiplies them for a
 * longer local session, and CORDON_FUZZ_SEED replays a failure (fast-check prints seed and path).
 */
import type fc from 'fast-check'

export function fuzzSettings<T>(numRuns: number): fc.Parameters<T> {
  const factor = Number(process.env.CORDON_FUZZ_RUNS ?? 1)
  const seed = process.env.CORDON_FUZZ_SEED
  return {
    numRuns: Math.max(1, Math.round(numRuns * (Number.isFinite(factor) && factor > 0 ? factor : 1))),
    ...(seed !== undefined && { seed: Number(seed) }),
  }
}
