import type { BackendCapabilities } from '@cordon/core'
import type { RuntimeFacts } from './runtime-facts.js'

/**
 * Where a candidate stands:
 * - `available`: it ran the probe program (with a tool call) correctly here;
 * - `not-installed`: its package cannot be imported;
 * - `unusable`: it loads but cannot run here (engine missing, wrong runtime, flags);
 * - `broken`: it ran the probe but gave a wrong answer, crashed or timed out;
 * - `disabled`: removed by CORDON_DISABLE or `exclude`, not probed;
 * - `lacks-capability`: it works but misses a capability in `require`;
 * - `not-tried`: selection stopped at a stronger or preferred backend first.
 */
export type CandidateStatus = 'available' | 'not-installed' | 'unusable' | 'broken' | 'disabled' | 'lacks-capability' | 'not-tried'

export interface CandidateReport {
  name: string
  /** Place in the strength ranking, 1 = strongest. */
  rank: number
  /** The package select imports for it. */
  module: string
  /** It ran the probe correctly (whatever `require` or the flags say). */
  available: boolean
  status: CandidateStatus
  /** Plain words: why it is or is not usable. */
  reason: string
  /** What to do to make it usable, when it is not. */
  fix?: string
  /** Time to import, create and probe it, in milliseconds (0 when not probed). */
  probeMs: number
  /** Its capability manifest, when its package loaded. */
  capabilities?: BackendCapabilities
  /** What it protects, in words, read from `capabilities`: the boundary, out of memory, the event loop. */
  protects?: string
  /** What it costs here, measured when `diagnose({ measure: true })` (available candidates only). */
  costs?: CandidateCosts
  /** Why `costs` could not be measured, when measuring was asked for and failed. */
  costsError?: string
}

/** Figures from one measurement on this machine: a noisy machine gives noisy figures. */
export interface CandidateCosts {
  /** The first run on a fresh instance, engine start included. */
  firstRunMs: number
  /** Median of five runs of a trivial program after the first, each after a 20 ms pause. */
  runMs: number
  /** One tool call's round trip: a run with 50 sequential calls, less a trivial run, per call. */
  toolCallUs: number
}

export interface Diagnosis {
  runtime: RuntimeFacts
  /** Every candidate, in the order selection considered them. */
  candidates: CandidateReport[]
  /** The backend `createSandbox` would use with these options, if any. */
  chosen?: string
  /** Why it was chosen (or why none could be). */
  summary: string
}
