import { SandboxError, type BackendCapabilities } from '@cordon/core'
import type { CapabilityRequirement } from './select-options.js'

/** Every key of the v1 capability manifest, with the values it may take. */
const CAPABILITY_VALUES = {
  isolation: ['process', 'v8-isolate', 'wasm'],
  memoryLimit: [true, false],
  syncHostCalls: [true, false],
  survivesGuestOom: [true, false],
  cpuTime: [true, false],
  heapStats: [true, false],
  networkIsolation: [true, false],
  sessions: [true, false],
} as const satisfies { [K in keyof BackendCapabilities]: readonly BackendCapabilities[K][] }

type Wanted = Record<string, readonly unknown[]>

function invalid(message: string): never {
  throw new SandboxError('INVALID_OPTIONS', message)
}

function checkKey(key: string): readonly unknown[] {
  const allowed = (CAPABILITY_VALUES as Record<string, readonly unknown[]>)[key]
  if (!allowed) invalid(`options.require: unknown capability "${key}" (known: ${Object.keys(CAPABILITY_VALUES).join(', ')})`)
  return allowed
}

/** Checks `require` and turns both of its forms into key → accepted values. */
export function checkRequirement(value: unknown): CapabilityRequirement {
  requirementValues(value)
  return value as CapabilityRequirement
}

function requirementValues(value: unknown): Wanted {
  const wanted: Wanted = {}
  if (Array.isArray(value)) {
    for (const key of value as unknown[]) {
      if (typeof key !== 'string') invalid('options.require: capability names must be strings')
      const allowed = checkKey(key)
      if (!allowed.includes(true)) invalid(`options.require: "${key}" is not yes/no; use { ${key}: '…' } instead`)
      wanted[key] = [true]
    }
    return wanted
  }
  if (typeof value !== 'object' || value === null) invalid('options.require must be an array of capability names or an object')
  for (const [key, raw] of Object.entries(value)) {
    const allowed = checkKey(key)
    const values = Array.isArray(raw) ? (raw as unknown[]) : [raw]
    for (const v of values) {
      if (!allowed.includes(v as never)) {
        invalid(`options.require.${key}: ${JSON.stringify(v)} is not one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`)
      }
    }
    wanted[key] = values
  }
  return wanted
}

/** The requirements a capability manifest does not meet, in words; empty when it meets them all. */
export function unmetRequirements(capabilities: BackendCapabilities, requirement: CapabilityRequirement | undefined): string[] {
  if (requirement === undefined) return []
  const have = capabilities as unknown as Record<string, unknown>
  const unmet: string[] = []
  for (const [key, accepted] of Object.entries(requirementValues(requirement))) {
    if (accepted.includes(have[key])) continue
    const wanted = accepted.length === 1 ? JSON.stringify(accepted[0]) : `one of ${accepted.map((a) => JSON.stringify(a)).join(', ')}`
    unmet.push(`${key} is ${JSON.stringify(have[key])}, required ${wanted}`)
  }
  return unmet
}
