import type { ToolSet } from '@cordon/core'
import type { GuestNamespace } from './guest-catalog.js'
import { toolResultValue } from './tool-result-value.js'

/** Whether a person must approve each call of an upstream's tool (config `needsApproval`). */
export type NeedsApproval = (upstream: string, tool: string) => boolean

/**
 * The cordon tool set that forwards each guest call to its upstream. Built once and reused
 * for every run: core caches its checks and compiled input schemas per tool set object.
 * `callTimeoutMs` only replaces the SDK's 60 s request timeout; the run's own deadline
 * aborts the call sooner through the signal.
 */
export function hostTools(
  namespaces: readonly GuestNamespace[],
  callTimeoutMs: number,
  needsApproval: NeedsApproval = () => false,
): ToolSet {
  const tools: ToolSet = {}
  for (const namespace of namespaces) {
    for (const tool of namespace.tools) {
      const label = `${namespace.name}.${tool.guestName}`
      tools[label] = {
        ...(tool.description !== undefined && { description: tool.description }),
        inputSchema: tool.inputSchema,
        ...(needsApproval(namespace.name, tool.upstreamName) && { needsApproval: true }),
        execute: async (args: unknown, { signal }) => {
          const result = await namespace.upstream.callTool(tool.upstreamName, args, { signal, timeoutMs: callTimeoutMs })
          return toolResultValue(result, label)
        },
      }
    }
  }
  return tools
}
