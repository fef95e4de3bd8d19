import { resolveLimits, type Limits, type ResolvedLimits } from '@cordon/core'
import type { ConfigLimits } from './config-schema.js'

/** The limits a call of run_javascript may set for itself (lower only). */
export const PER_CALL_LIMITS = ['timeoutMs', 'memoryMb', 'maxToolCalls', 'maxOutputBytes'] as const
export type PerCallLimit = (typeof PER_CALL_LIMITS)[number]

/**
 * The config's limits over cordon's defaults. They are each call's defaults and also its
 * ceilings. CORDON_* variables are not read: the config file is the one place to look.
 */
export function ceilingsFrom(limits: ConfigLimits): ResolvedLimits {
  const set: Partial<Limits> = {}
  for (const [name, value] of Object.entries(limits) as [keyof Limits, number | undefined][]) {
    if (value !== undefined) set[name] = value
  }
  return resolveLimits(set)
}

export interface CallLimits {
  limits: Partial<Limits>
  /** One line per requested value that was lowered or ignored, for the result. */
  notes: string[]
}

/**
 * A call's requested limits, each clamped to the ceiling; what it leaves out gets the ceiling
 * (the sandbox's defaults). `enforced` leaves out memoryMb on a backend that cannot enforce
 * it, where asking for it would fail the run as UNSUPPORTED.
 */
export function limitsForCall(
  ceilings: ResolvedLimits,
  requested: Partial<Record<PerCallLimit, number>>,
  enforced: readonly PerCallLimit[],
): CallLimits {
  const limits: Partial<Limits> = {}
  const notes: string[] = []
  for (const name of PER_CALL_LIMITS) {
    const asked = requested[name]
    const ceiling = ceilings[name]
    if (asked === undefined) continue
    if (!enforced.includes(name)) {
      notes.push(`${name} was ignored: this server's sandbox backend does not enforce it`)
      continue
    }
    if (asked > ceiling) notes.push(`${name} ${asked} was lowered to ${ceiling}, the most this server allows`)
    limits[name] = Math.min(asked, ceiling)
  }
  return { limits, notes }
}
