import { SandboxError } from '../errors.js'
import { describeOptionValue } from '../limits.js'

/** `trace: { includeValues }`: what the OpenTelemetry spans of a run may carry. */
export interface TraceOptions {
  /**
   * Also record the code, each tool call's arguments and result, the run's value and error
   * messages on the spans (as JSON text, cut to 4 KiB). Off by default: spans carry the backend,
   * names, codes, counts, sizes and durations only, since the rest may hold secrets or personal data.
   */
  includeValues?: boolean
}

export interface ResolvedTrace {
  includeValues: boolean
}

/** `trace` as given (absent means on); undefined when tracing is off (`trace: false`). */
export function resolveTraceOptions(value: unknown, source: string): ResolvedTrace | undefined {
  if (value === false) return undefined
  if (value === undefined || value === true) return { includeValues: false }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SandboxError('INVALID_OPTIONS', `${source}: trace must be a boolean or { includeValues }, got ${describeOptionValue(value)}`)
  }
  const record = value as Record<string, unknown>
  for (const key of Object.keys(record)) {
    if (key !== 'includeValues') throw new SandboxError('INVALID_OPTIONS', `${source}: trace: unknown option "${key}"`)
  }
  const { includeValues } = record
  if (includeValues !== undefined && typeof includeValues !== 'boolean') {
    throw new SandboxError('INVALID_OPTIONS', `${source}: trace.includeValues must be a boolean, got ${describeOptionValue(includeValues)}`)
  }
  return { includeValues: includeValues === true }
}
