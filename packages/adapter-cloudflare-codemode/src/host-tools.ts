import { RESERVED_WORDS, type ToolSet } from '@cordon/core'
import type { ConnectorBinding, ResolvedProvider } from './executor-contract.js'
import type { NamespacePlan } from './guest-namespaces.js'
import { guestToolName } from './tool-names.js'

/** The key a connector's answer carries to steer the guest (Cloudflare's durable runtime writes it). */
const CONTROL_KEY = '__codemode_control__'
/** The message of the error a connector's "pause" answer throws in the guest; the runtime looks for it. */
const PAUSE_MESSAGE = '__CODEMODE_PAUSE__'

export type HostTools = { ok: true; tools: ToolSet; plan: NamespacePlan } | { ok: false; error: string }

/**
 * Providers and connectors as cordon tools, and the plan of the guest's namespaces, or the reason
 * they cannot be set up (a name that is not an identifier, a name used twice, two tools of one
 * provider that sanitize to the same name). Each provider function is the cordon tool
 * `provider.name`, called with the guest's arguments as a list; each connector is the one tool
 * `connector`, called with `{ method, args }`.
 */
export function hostTools(providers: readonly ResolvedProvider[], connectors: readonly ConnectorBinding[]): HostTools {
  const tools: ToolSet = {}
  const plan: NamespacePlan = { providers: [], connectors: [], preludes: [] }
  const taken = new Set<string>()
  for (const provider of providers) {
    const refused = refusedName('Provider', provider.name, taken)
    if (refused !== undefined) return { ok: false, error: refused }
    taken.add(provider.name)
  }
  for (const connector of connectors) {
    const refused = refusedName('Connector', connector.name, taken)
    if (refused !== undefined) return { ok: false, error: refused }
    taken.add(connector.name)
  }
  for (const provider of providers) {
    const byGuestName = new Map<string, string>()
    for (const [name, fn] of Object.entries(provider.fns)) {
      const guestName = guestToolName(name)
      const other = byGuestName.get(guestName)
      if (other !== undefined) {
        return { ok: false, error: `Tool names "${other}" and "${name}" of provider "${provider.name}" both sanitize to "${guestName}"` }
      }
      byGuestName.set(guestName, name)
      tools[`${provider.name}.${guestName}`] = { execute: (args: unknown) => fn(...(Array.isArray(args) ? (args as unknown[]) : [args])) }
    }
    plan.providers.push({ name: provider.name, hasTools: byGuestName.size > 0 })
    if (provider.prelude) plan.preludes.push(provider.prelude)
  }
  for (const connector of connectors) {
    plan.connectors.push(connector.name)
    tools[connector.name] = { execute: (call: unknown) => callConnector(connector, call) }
  }
  return { ok: true, tools, plan }
}

function refusedName(kind: 'Provider' | 'Connector', name: unknown, taken: ReadonlySet<string>): string | undefined {
  if (typeof name !== 'string' || !/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) || RESERVED_WORDS.has(name)) {
    return `${kind} name ${JSON.stringify(String(name))} is not a valid JavaScript identifier`
  }
  if (taken.has(name)) return `Duplicate ${kind.toLowerCase()} name "${name}": a provider or connector already has it`
  return undefined
}

/** `connector.method(args)` of the guest: the binding's answer, or its control answer as an error in the guest. */
async function callConnector(connector: ConnectorBinding, call: unknown): Promise<unknown> {
  const { method, args } = call as { method: string; args: unknown }
  const answer = await connector.binding.callTool(method, args)
  if (typeof answer === 'object' && answer !== null && CONTROL_KEY in answer) {
    const control = answer as Record<string, unknown>
    if (control[CONTROL_KEY] === 'pause') throw new Error(PAUSE_MESSAGE)
    if (control[CONTROL_KEY] === 'error') throw new Error(String(control.message))
  }
  return answer
}
