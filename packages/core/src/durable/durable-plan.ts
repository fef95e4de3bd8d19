import type { ResolvedLimits } from '../limits.js'
import type { ResolvedDurableOptions } from './durable-options.js'
import { RunLedger } from './run-ledger.js'

/** What a durable run carries besides an ordinary run's plan. */
export interface DurablePlan {
  options: ResolvedDurableOptions
  ledger: RunLedger
  /** The guest's clock start and Math.random seed: the same on every resume. */
  clock: { now: number; seed: number[] }
  /** The limits of the first run: `timeoutMs` is the budget of all its resumes together. */
  limits: ResolvedLimits
  /** Time spent by the earlier runs of this program (before the last pause), ms. */
  usedMs: number
  /** The code as the first run was given it. */
  code: string
  /** Hash of the run's modules (modules-hash.ts), set once they are loaded; absent without modules. */
  modules?: string
}

export function firstRunPlan(options: ResolvedDurableOptions, limits: ResolvedLimits, code: string, startedAt: number): DurablePlan {
  const seed = [...globalThis.crypto.getRandomValues(new Uint32Array(4))]
  return { options, ledger: new RunLedger(), clock: { now: startedAt, seed }, limits, usedMs: 0, code }
}
