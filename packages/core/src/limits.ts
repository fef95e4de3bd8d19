import { SandboxError } from './errors.js'

/** Every numeric limit of a run. */
export interface Limits {
  /** Wall-clock budget of the whole run: sync code, awaits, microtasks and time inside tools. */
  timeoutMs: number
  /** Guest heap cap. */
  memoryMb: number
  /** Cap on the serialized size (UTF-8 bytes of the wire text) of the result and of each tool call's arguments. */
  maxOutputBytes: number
  /** Tool calls allowed in one run; the next one ends the run with TOOL_CALL_LIMIT. */
  maxToolCalls: number
  /** Tool calls running at once; further calls wait their turn. */
  maxConcurrentToolCalls: number
  /** Console entries kept; later entries are dropped and counted in `stats.logsDropped`. */
  maxLogEntries: number
  /** Size cap of one console entry in UTF-8 bytes; longer entries are cut with a visible marker. */
  maxLogBytes: number
  /** Size cap of the code passed to `run`, in UTF-8 bytes. */
  maxCodeBytes: number
}

export type ResolvedLimits = Readonly<Limits>

export const DEFAULT_LIMITS: ResolvedLimits = Object.freeze({
  timeoutMs: 30_000,
  memoryMb: 128,
  maxOutputBytes: 1024 * 1024,
  maxToolCalls: 100,
  maxConcurrentToolCalls: 16,
  maxLogEntries: 100,
  maxLogBytes: 1_000,
  maxCodeBytes: 1024 * 1024,
})

interface LimitRule {
  min: number
  max: number
  env: string
}

/** Bounds keep a typo (`timeoutMs: 5e9`, `memoryMb: 0`) from becoming a silent misconfiguration. */
const RULES: Record<keyof Limits, LimitRule> = {
  timeoutMs: { min: 1, max: 24 * 60 * 60 * 1000, env: 'CORDON_TIMEOUT_MS' },
  memoryMb: { min: 8, max: 65_536, env: 'CORDON_MEMORY_MB' },
  maxOutputBytes: { min: 16, max: 1024 * 1024 * 1024, env: 'CORDON_MAX_OUTPUT_BYTES' },
  maxToolCalls: { min: 0, max: 1_000_000, env: 'CORDON_MAX_TOOL_CALLS' },
  maxConcurrentToolCalls: { min: 1, max: 10_000, env: 'CORDON_MAX_CONCURRENT_TOOL_CALLS' },
  maxLogEntries: { min: 0, max: 1_000_000, env: 'CORDON_MAX_LOG_ENTRIES' },
  maxLogBytes: { min: 16, max: 64 * 1024 * 1024, env: 'CORDON_MAX_LOG_BYTES' },
  maxCodeBytes: { min: 1, max: 256 * 1024 * 1024, env: 'CORDON_MAX_CODE_BYTES' },
}

export const LIMIT_NAMES = Object.keys(RULES) as (keyof Limits)[]

/** The environment variable that sets a process-wide default for each limit. */
export const LIMIT_ENV_VARS: Readonly<Record<keyof Limits, string>> = Object.freeze(
  Object.fromEntries(LIMIT_NAMES.map((name) => [name, RULES[name].env])) as Record<keyof Limits, string>,
)

export function checkLimit(name: keyof Limits, value: unknown, source: string): number {
  const rule = RULES[name]
  if (typeof value !== 'number' || !Number.isInteger(value) || value < rule.min || value > rule.max) {
    throw new SandboxError(
      'INVALID_OPTIONS',
      `${source}: ${name} must be an integer from ${rule.min} to ${rule.max}, got ${describeOptionValue(value)}`,
    )
  }
  return value
}

/** Reads process-wide defaults from `CORDON_*` variables; a malformed variable is a host error. */
export function limitsFromEnv(env: Record<string, string | undefined>): Partial<Limits> {
  const out: Partial<Limits> = {}
  for (const name of LIMIT_NAMES) {
    const variable = RULES[name].env
    const raw = env[variable]
    if (raw === undefined || raw.trim() === '') continue
    const parsed = Number(raw.trim().replace(/_/g, ''))
    out[name] = checkLimit(name, parsed, `environment variable ${variable}="${raw}"`)
  }
  return out
}

/** Later layers win: built-in defaults < environment < sandbox defaults < run options. */
export function resolveLimits(...layers: Partial<Limits>[]): ResolvedLimits {
  const merged: Limits = { ...DEFAULT_LIMITS }
  for (const layer of layers) {
    for (const name of LIMIT_NAMES) {
      const value = layer[name]
      if (value !== undefined) merged[name] = value
    }
  }
  return Object.freeze(merged)
}

/** A bad option value, shown in an INVALID_OPTIONS message (never '[object Object]'). */
export function describeOptionValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  if (typeof value === 'number' || typeof value === 'boolean' || value == null) return String(value)
  if (Array.isArray(value)) return 'an array'
  return `a ${typeof value}`
}

function safeEnv(): Record<string, string | undefined> {
  // `process` is absent in browsers and some edge runtimes; defaults then come from code only.
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
  return proc?.env ?? {}
}

export function environmentLimits(): Partial<Limits> {
  return limitsFromEnv(safeEnv())
}
