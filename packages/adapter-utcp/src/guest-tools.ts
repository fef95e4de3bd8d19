import type { ToolDefinition, ToolSet } from '@cordon/core'
import type { Tool } from '@utcp/sdk'
import { guestName } from './guest-names.js'
import { allDeclarations, toolDeclaration } from './typescript-declarations.js'

/** What a chain's guest gets: its tools and globals, and which UTCP tool each guest function calls. */
export interface GuestTools {
  tools: ToolSet
  globals: { __interfaces: string }
  /** UTCP's name (`weather.get-current`) for each cordon tool name (`weather.get_current`). */
  utcpNames: ReadonlyMap<string, string>
}

/**
 * UTCP's tools as cordon tools the guest calls synchronously, named as UTCP's code-mode client
 * names them, plus `__getToolInterface(name)` and the `__interfaces` text. A call of a UTCP tool
 * pauses the run (`ctx.interrupt`): the tool chain calls the tool on the host, asynchronously, and
 * resumes the program with its answer (see tool-chain.ts).
 */
export function guestTools(utcpTools: readonly Tool[]): GuestTools {
  const utcpNames = new Map<string, string>()
  const declarations = new Map<string, string>()
  const entries: [string, ToolDefinition][] = []
  for (const tool of utcpTools) {
    const { path } = guestName(tool.name)
    const declaration = toolDeclaration(tool)
    declarations.set(tool.name, declaration)
    if (!declarations.has(path)) declarations.set(path, declaration)
    utcpNames.set(path, tool.name)
    entries.push([path, { description: tool.description, sync: true, execute: (_args: unknown, ctx) => ctx.interrupt() }])
  }
  entries.push([
    '__getToolInterface',
    {
      description: "The TypeScript declaration of one tool, by UTCP's name or the guest's (null if there is none)",
      sync: true,
      execute: (name: unknown) => (typeof name === 'string' ? (declarations.get(name) ?? null) : null),
    },
  ])
  // fromEntries defines own properties: a tool named __proto__ stays a tool, not a prototype.
  return { tools: Object.fromEntries(entries), globals: { __interfaces: allDeclarations(utcpTools) }, utcpNames }
}
