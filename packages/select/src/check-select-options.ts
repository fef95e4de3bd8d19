import { SandboxError } from '@cordon/core'
import { describeOptionValue } from '@cordon/core/backend'
import { BUILTIN_CANDIDATES, type BackendCandidate } from './candidates.js'
import { checkRequirement } from './requirement.js'
import { DEFAULT_PROBE_TIMEOUT_MS, type ForcedBackend, type SelectOptions, type SelectionRequest, type Source } from './select-options.js'

const SELECT_KEYS = ['backend', 'prefer', 'exclude', 'require', 'backendOptions', 'probeTimeoutMs', 'fresh', 'env', 'candidates']

function invalid(message: string): never {
  throw new SandboxError('INVALID_OPTIONS', message)
}

/**
 * Checks the options, reads CORDON_BACKEND and CORDON_DISABLE, and settles every
 * precedence question (options win over the environment) before anything is probed.
 */
export function checkSelectOptions(options: unknown, source: string, extraKeys: readonly string[] = []): SelectionRequest {
  if (options === undefined) options = {}
  if (typeof options !== 'object' || options === null || Array.isArray(options)) invalid(`${source} must be an object`)
  const record = options as Record<string, unknown>
  for (const key of Object.keys(record)) {
    if (!SELECT_KEYS.includes(key) && !extraKeys.includes(key)) {
      invalid(`${source}: unknown option "${key}" (known: ${[...SELECT_KEYS, ...extraKeys].join(', ')})`)
    }
  }
  const opts = record as SelectOptions
  const candidates = checkCandidates(opts.candidates)
  const known = (raw: unknown, where: string) => resolveName(raw, candidates, where)
  const env = checkEnv(opts.env)

  const envBackend = (env.CORDON_BACKEND ?? '').trim()
  const forced: ForcedBackend | undefined =
    opts.backend !== undefined
      ? { name: known(opts.backend, 'options.backend'), source: 'options.backend' }
      : envBackend !== ''
        ? { name: known(envBackend, `CORDON_BACKEND="${envBackend}"`), source: 'CORDON_BACKEND' }
        : undefined

  const disabled = new Map<string, Source>()
  for (const raw of splitList(env.CORDON_DISABLE)) {
    const name = known(raw, `CORDON_DISABLE="${env.CORDON_DISABLE}"`)
    // An explicit options.backend wins over the environment.
    if (forced?.source !== 'options.backend' || forced.name !== name) disabled.set(name, 'CORDON_DISABLE')
  }
  for (const raw of nameList(opts.exclude, 'options.exclude')) disabled.set(known(raw, 'options.exclude'), 'options.exclude')
  if (forced && disabled.has(forced.name)) {
    invalid(`${forced.source} asks for "${forced.name}" but ${disabled.get(forced.name)} removes it; drop one of the two`)
  }

  const prefer = [...new Set(nameList(opts.prefer, 'options.prefer').map((raw) => known(raw, 'options.prefer')))]
  return {
    candidates,
    forced,
    prefer,
    disabled,
    require: opts.require === undefined ? undefined : checkRequirement(opts.require),
    backendOptions: checkBackendOptions(opts.backendOptions, known),
    probeTimeoutMs: checkProbeTimeout(opts.probeTimeoutMs),
    fresh: checkBoolean(opts.fresh, 'options.fresh'),
  }
}

/** Matches a name (or package name) case-insensitively; unknown names are host errors. */
function resolveName(raw: unknown, candidates: readonly BackendCandidate[], where: string): string {
  if (typeof raw !== 'string') invalid(`${where}: a backend name must be a string, got ${typeof raw}`)
  const wanted = raw.trim().toLowerCase()
  const found = candidates.find((c) => c.name.toLowerCase() === wanted || c.module.toLowerCase() === wanted)
  if (!found) invalid(`${where}: unknown backend "${raw}" (known: ${candidates.map((c) => c.name).join(', ')})`)
  return found.name
}

function checkCandidates(value: unknown): readonly BackendCandidate[] {
  if (value === undefined) return BUILTIN_CANDIDATES
  if (!Array.isArray(value) || value.length === 0) invalid('options.candidates must be a non-empty array')
  const names = new Set<string>()
  for (const candidate of value as unknown[]) {
    const c = candidate as Partial<BackendCandidate> | null
    const ok =
      typeof c === 'object' &&
      c !== null &&
      typeof c.name === 'string' &&
      c.name.trim() !== '' &&
      typeof c.rank === 'number' &&
      Number.isFinite(c.rank) &&
      typeof c.module === 'string' &&
      typeof c.factory === 'string' &&
      typeof c.install === 'string' &&
      (c.load === undefined || typeof c.load === 'function')
    if (!ok) invalid('options.candidates: each candidate needs name, rank, module, factory and install (and optionally load)')
    if (names.has(c.name!.toLowerCase())) invalid(`options.candidates: "${c.name}" appears twice`)
    names.add(c.name!.toLowerCase())
  }
  return value as readonly BackendCandidate[]
}

function checkEnv(value: unknown): Record<string, string | undefined> {
  if (value === undefined) {
    const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    return proc?.env ?? {}
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) invalid('options.env must be an object')
  return value as Record<string, string | undefined>
}

function splitList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
}

function nameList(value: unknown, where: string): unknown[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) invalid(`${where} must be an array of backend names`)
  return value as unknown[]
}

function checkBackendOptions(value: unknown, known: (raw: unknown, where: string) => string): Record<string, object | undefined> {
  if (value === undefined) return {}
  if (typeof value !== 'object' || value === null || Array.isArray(value)) invalid('options.backendOptions must be an object')
  const out: Record<string, object | undefined> = {}
  for (const [key, options] of Object.entries(value)) {
    const name = known(key, 'options.backendOptions')
    if (options !== undefined && (typeof options !== 'object' || options === null)) {
      invalid(`options.backendOptions.${key} must be an object`)
    }
    out[name] = options as object | undefined
  }
  return out
}

function checkProbeTimeout(value: unknown): number {
  if (value === undefined) return DEFAULT_PROBE_TIMEOUT_MS
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 600_000) {
    invalid(`options.probeTimeoutMs must be an integer from 1 to 600000, got ${describeOptionValue(value)}`)
  }
  return value
}

export function checkBoolean(value: unknown, where: string): boolean {
  if (value === undefined) return false
  if (typeof value !== 'boolean') invalid(`${where} must be a boolean`)
  return value
}
