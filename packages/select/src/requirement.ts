import { SandboxError, type BackendCapabilities } from '@cordon/core'
import type { CapabilityRequirement } from '@cordon/core/backend'

/** Every key of the v1 capability manifest, with the values it may take. */
const CAPABILITY_VALUES = {
  isolation: ['process', 'v8-isolate', 'wasm', 'process+v8-isolate', 'process+wasm'],
  memoryLimit: [true, false],
  syncHostCalls: [true, false],
  survivesGuestOom: [true, false],
  cpuTime: [true, false],
  heapStats: [true, false],
  networkIsolation: [true, false],
  sessions: [true, false],
  preemptive: [true, false],
  inspector: [true, false],
} as const satisfies { [K in keyof BackendCapabilities]: readonly BackendCapabilities[K][] }

function invalid(message: string): never {
  throw new SandboxError('INVALID_OPTIONS', message)
}

function checkKey(key: string): readonly unknown[] {
  const allowed = (CAPABILITY_VALUES as Record<string, readonly unknown[]>)[key]
  if (!allowed) invalid(`options.require: unknown capability "${key}" (known: ${Object.keys(CAPABILITY_VALUES).join(', ')})`)
  return allowed
}

/** Checks `require`, in either of its forms (matched by core's `unmetCapabilities`). Throws INVALID_OPTIONS. */
export function checkRequirement(value: unknown): CapabilityRequirement {
  if (Array.isArray(value)) {
    for (const key of value as unknown[]) {
      if (typeof key !== 'string') invalid('options.require: capability names must be strings')
      const allowed = checkKey(key)
      if (!allowed.includes(true)) invalid(`options.require: "${key}" is not yes/no; use { ${key}: '…' } instead`)
    }
    return value as CapabilityRequirement
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
  }
  return value
}
