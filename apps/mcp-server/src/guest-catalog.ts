import type { Implementation } from '@modelcontextprotocol/sdk/types.js'
import { guestIdentifiers } from './guest-names.js'
import type { Upstream } from './upstream.js'

/** One upstream tool as the guest sees it: `await <namespace>.<guestName>(args)`. */
export interface GuestTool {
  guestName: string
  /** Its name on the upstream server (differs from guestName when that is not an identifier). */
  upstreamName: string
  title?: string
  description?: string
  inputSchema: Record<string, unknown>
  outputSchema?: Record<string, unknown>
}

/** One upstream server as a namespace of the sandbox. */
export interface GuestNamespace {
  name: string
  info: Implementation | undefined
  upstream: Upstream
  tools: GuestTool[]
}

export function guestNamespace(upstream: Upstream): GuestNamespace {
  const names = guestIdentifiers(upstream.tools.map((tool) => tool.name))
  const tools = upstream.tools.map((tool, i): GuestTool => ({
    guestName: names[i]!,
    upstreamName: tool.name,
    ...(tool.title !== undefined && { title: tool.title }),
    ...(tool.description !== undefined && { description: tool.description }),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema !== undefined && { outputSchema: tool.outputSchema }),
  }))
  return { name: upstream.name, info: upstream.info, upstream, tools }
}
