import type { ToolRegistry } from '../tools/tool-registry.js'
import { toBase64Url } from './base64url.js'
import { sha256 } from './sha256.js'

/**
 * What of a tool set a replay depends on: each tool's name, whether it is sync, its input schema
 * and whether it asks for approval. A resume must pass tools with the same fingerprint, or the
 * recorded calls would be answered for tools that now mean something else.
 */
export function toolsFingerprint(registry: ToolRegistry): string {
  const tools = [...registry.byName.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, tool]) => [
      name,
      tool.sync === true,
      tool.inputSchema === undefined ? null : tool.inputSchema,
      typeof tool.needsApproval === 'function' ? 'function' : tool.needsApproval === true,
    ])
  return toBase64Url(sha256(JSON.stringify(tools)).subarray(0, 16))
}
