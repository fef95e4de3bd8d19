import type { BackendCandidate } from './candidates.js'
import { probeCandidate, type Probe } from './probe.js'
import type { RuntimeFacts } from './runtime-facts.js'

interface Slot {
  /** Keyed by the options' JSON text when they are plain data (or '' for none). */
  byValue: Map<string, Promise<Probe>>
  /** Options holding functions, modules or class instances: keyed by the object itself. */
  byIdentity: WeakMap<object, Promise<Probe>>
}

/**
 * One probe per candidate and per backendOptions value, per process; concurrent callers
 * share the promise. Keyed by the candidate object, so the built-ins stay cached for the
 * life of the process and injected candidates with theirs. Plain-data options are compared
 * by value so that `createSandbox({ backendOptions: { subprocess: { poolSize: 4 } } })`
 * called for every request does not probe every time.
 */
const cache = new WeakMap<BackendCandidate, Slot>()

export interface CachedProbeInput {
  candidate: BackendCandidate
  options: object | undefined
  facts: RuntimeFacts
  timeoutMs: number
  fresh: boolean
  /** For a selection: the probe keeps its backend (Probe.kept). */
  keep: boolean
}

export function cachedProbe(input: CachedProbeInput): Promise<Probe> {
  let slot = cache.get(input.candidate)
  if (!slot) cache.set(input.candidate, (slot = { byValue: new Map(), byIdentity: new WeakMap() }))
  const key = input.options === undefined ? '' : plainKey(input.options)
  const existing = key !== undefined ? slot.byValue.get(key) : slot.byIdentity.get(input.options!)
  if (existing && !input.fresh) return existing
  const probe = probeCandidate(input)
  if (key !== undefined) slot.byValue.set(key, probe)
  else slot.byIdentity.set(input.options!, probe)
  return probe
}

/** Canonical JSON of plain data (sorted keys), or undefined when it holds anything else. */
function plainKey(value: unknown, depth = 0): string | undefined {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : undefined
  if (typeof value !== 'object' || depth > 8) return undefined
  if (Array.isArray(value)) {
    const items = value.map((item) => plainKey(item, depth + 1))
    return items.every((item) => item !== undefined) ? `[${items.join(',')}]` : undefined
  }
  const proto = Object.getPrototypeOf(value) as unknown
  if (proto !== Object.prototype && proto !== null) return undefined
  const entries: string[] = []
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key]
    if (item === undefined) continue
    const text = plainKey(item, depth + 1)
    if (text === undefined) return undefined
    entries.push(`${JSON.stringify(key)}:${text}`)
  }
  return `{${entries.join(',')}}`
}
