import type { ResolvedLimits } from '../limits.js'
import type { LedgerEntry } from './run-ledger.js'

/** Everything a resume needs, as signed inside a continuation. Never holds guest memory. */
export interface ContinuationState {
  v: 1
  /** Random, one per pause: what `durable.claim` is given to make continuations single-use. */
  id: string
  /** The code as given to `run` and its SHA-256 (base64url): a resume re-runs it from the start. */
  code: string
  codeHash: string
  /** Hash of the run's modules (names and sources), when it had any: a resume must give the same. */
  modules?: string
  /** The paused run's resolved limits; `timeoutMs` is the whole budget, of which `usedMs` is spent. */
  limits: ResolvedLimits
  usedMs: number
  /** Fingerprint of the tool set (names, sync, schemas, needsApproval): a resume must pass the same. */
  tools: string
  ledger: LedgerEntry[]
  /** Ledger slots in the order their outcomes reached the guest. */
  order: number[]
  /** Index in `ledger` of the call that paused the run. */
  pausedAt: number
  /** Whether that call paused for `needsApproval` (an answer then runs the tool) or by `ctx.interrupt`. */
  approval: boolean
  /** The guest's clock start (ms since the epoch) and Math.random seed. */
  clock: { now: number; seed: number[] }
  /** When the continuation was made (ms since the epoch), for `maxAgeMs`. */
  issuedAt: number
}

const isInt = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0

/** The shape check of a decoded state: a signature proves who made it, not that this version can read it. */
export function isContinuationState(value: unknown): value is ContinuationState {
  if (typeof value !== 'object' || value === null) return false
  const s = value as Record<string, unknown>
  const clock = s.clock as Record<string, unknown> | undefined
  return (
    s.v === 1 &&
    typeof s.id === 'string' &&
    typeof s.code === 'string' &&
    typeof s.codeHash === 'string' &&
    (s.modules === undefined || typeof s.modules === 'string') &&
    typeof s.limits === 'object' &&
    s.limits !== null &&
    isInt(s.usedMs) &&
    typeof s.tools === 'string' &&
    Array.isArray(s.ledger) &&
    s.ledger.every(isLedgerEntry) &&
    Array.isArray(s.order) &&
    s.order.every((slot) => isInt(slot) && (slot as number) < (s.ledger as unknown[]).length) &&
    isInt(s.pausedAt) &&
    (s.pausedAt as number) < s.ledger.length &&
    typeof s.approval === 'boolean' &&
    typeof clock === 'object' &&
    clock !== null &&
    isInt(clock.now) &&
    Array.isArray(clock.seed) &&
    clock.seed.length === 4 &&
    clock.seed.every((n) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff) &&
    isInt(s.issuedAt)
  )
}

function isLedgerEntry(entry: unknown): boolean {
  if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'string') return false
  if (entry[2] === 2) return entry.length === 3
  return (entry[2] === 0 || entry[2] === 1) && entry.length === 4 && typeof entry[3] === 'string'
}
