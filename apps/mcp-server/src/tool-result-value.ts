import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { UpstreamCallResult } from './upstream.js'

/**
 * What the guest's `await ns.tool(args)` resolves to, from an upstream's result:
 * `structuredContent` when the tool sent it; otherwise its content, where a text block is
 * parsed as JSON when it is JSON and kept as a string when not, and other blocks (images,
 * resources) stay as the MCP block objects. One block gives its value, several an array.
 * An `isError` result throws, so the guest can catch it like any failed call.
 */
export function toolResultValue(result: UpstreamCallResult, label: string): unknown {
  // Servers on the 2024-10-07 protocol answer `{ toolResult }`.
  if (!('content' in result) || !Array.isArray(result.content)) return 'toolResult' in result ? result.toolResult : undefined
  // The compatibility member of the SDK's result type leaves `content` untyped; checked above.
  const { content, isError, structuredContent } = result as CallToolResult
  if (isError === true) {
    const text = content
      .flatMap((block) => (block.type === 'text' ? [block.text] : []))
      .join('\n')
      .trim()
    throw new Error(text === '' ? `${label} failed (the server gave no message)` : text)
  }
  if (structuredContent !== undefined) return structuredContent
  const values = content.map((block) => (block.type === 'text' ? parseIfJson(block.text) : block))
  if (values.length === 0) return undefined
  return values.length === 1 ? values[0] : values
}

function parseIfJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
