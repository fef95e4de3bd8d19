import type { BackendCapabilities, BooleanCapability } from './v1/capabilities.js'

/**
 * Capabilities a backend must declare: yes/no keys that must be `true`, or exact values (one,
 * or a list of accepted ones). `@cordon/select` takes it as `require`; a conformance check
 * declares it as `requires` and is skipped on a backend that does not meet it.
 */
export type CapabilityRequirement =
  | readonly BooleanCapability[]
  | {
      [K in keyof BackendCapabilities]?: BackendCapabilities[K] | readonly BackendCapabilities[K][]
    }

/**
 * The requirements a capability manifest does not meet, in words (`sessions is false, required
 * true`); empty when it meets them all. Keys are read as given: check untrusted input first.
 */
export function unmetCapabilities(capabilities: BackendCapabilities, requirement: CapabilityRequirement | undefined): string[] {
  if (requirement === undefined) return []
  const have = capabilities as unknown as Record<string, unknown>
  const unmet: string[] = []
  for (const [key, accepted] of acceptedValues(requirement)) {
    if (accepted.includes(have[key]) || meetsIsolation(key, have[key], accepted)) continue
    const wanted = accepted.length === 1 ? JSON.stringify(accepted[0]) : `one of ${accepted.map((a) => JSON.stringify(a)).join(', ')}`
    unmet.push(`${key} is ${JSON.stringify(have[key])}, required ${wanted}`)
  }
  return unmet
}

function acceptedValues(requirement: CapabilityRequirement): [string, readonly unknown[]][] {
  if (Array.isArray(requirement)) return (requirement as readonly string[]).map((key) => [key, [true]])
  return Object.entries(requirement).map(([key, value]) => [key, Array.isArray(value) ? (value as unknown[]) : [value]])
}

/** An engine inside a child process has a process boundary too: it meets a required `'process'`. */
function meetsIsolation(key: string, have: unknown, accepted: readonly unknown[]): boolean {
  return key === 'isolation' && accepted.includes('process') && typeof have === 'string' && have.startsWith('process+')
}
