import type { ResolvedLimits, Sandbox, ToolSet } from '@cordon/core'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { limitsForCall, type PerCallLimit } from './call-limits.js'
import { formatRunResult } from './format-run-result.js'
import type { Declarations } from './declarations.js'
import type { RunGate } from './run-gate.js'

export const RUN_TOOL = 'run_javascript'
export const DECLARATIONS_TOOL = 'get_declarations'
export const DECLARATIONS_URI = 'cordon://declarations.d.ts'

export interface CodeModeServerOptions {
  version: string
  sandbox: Sandbox
  /** The upstream tools as a cordon tool set (one object for every run). */
  tools: ToolSet
  declarations: Declarations
  description: string
  ceilings: ResolvedLimits
  /** The limits a call may lower (memoryMb only where the backend enforces it). */
  perCallLimits: readonly PerCallLimit[]
  /** Admission control for this server's client (HTTP); none over stdio. */
  runGate?: RunGate
}

/** The MCP server: `run_javascript`, `get_declarations`, and the declarations as a resource. */
export function createCodeModeServer(options: CodeModeServerOptions): McpServer {
  const { sandbox, tools, ceilings } = options
  const server = new McpServer(
    { name: 'cordon-mcp', version: options.version },
    {
      instructions:
        `${RUN_TOOL} runs JavaScript in a sandbox where the configured MCP servers' tools are async functions ` +
        `(\`await server.tool(args)\`). Prefer one program that makes several calls and returns only what is needed ` +
        `over many separate tool calls. ${DECLARATIONS_TOOL} gives the TypeScript types of every tool.`,
    },
  )

  server.registerTool(
    RUN_TOOL,
    {
      title: 'Run JavaScript in a sandbox',
      description: options.description,
      inputSchema: runInputShape(ceilings),
      // What a program does depends on the upstream tools it calls.
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    async ({ code, ...requested }, extra): Promise<CallToolResult> => {
      const { limits, notes } = limitsForCall(ceilings, requested, options.perCallLimits)
      const release = options.runGate === undefined ? () => undefined : options.runGate.tryEnter()
      if (release === undefined) {
        const limit = options.runGate!.limit
        return {
          isError: true,
          content: [{ type: 'text', text: `TOO_MANY_RUNS: this client already has ${limit} ${RUN_TOOL} calls in flight, the most this server allows; wait for one to finish` }],
        }
      }
      try {
        const result = await sandbox.run(code, { tools, ...limits, signal: extra.signal })
        return formatRunResult(result, code, ceilings, notes)
      } catch (error) {
        // run() throws only for host-side problems (bad options, a disposed sandbox).
        const { code: errorCode = 'INTERNAL', message } = error as { code?: string; message: string }
        return { isError: true, content: [{ type: 'text', text: `${errorCode}: ${message}` }] }
      } finally {
        release()
      }
    },
  )

  const names = [...options.declarations.byNamespace.keys()]
  server.registerTool(
    DECLARATIONS_TOOL,
    {
      title: 'TypeScript declarations of the sandbox tools',
      description:
        `The TypeScript declarations of the tools ${RUN_TOOL} programs can call, generated from their JSON Schemas: ` +
        `argument types, and result types where a tool declares an output schema. Namespaces: ${names.join(', ') || '(none)'}.`,
      inputSchema: { namespace: z.string().optional().describe('Only this namespace (an upstream server name); all of them when left out.') },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ namespace }): Promise<CallToolResult> => {
      if (namespace === undefined) return { content: [{ type: 'text', text: options.declarations.all || '// No tools are configured.' }] }
      const text = options.declarations.byNamespace.get(namespace)
      if (text === undefined) {
        return { isError: true, content: [{ type: 'text', text: `No namespace "${namespace}". Namespaces: ${names.join(', ') || '(none)'}.` }] }
      }
      return { content: [{ type: 'text', text }] }
    },
  )

  server.registerResource(
    'declarations',
    DECLARATIONS_URI,
    {
      title: 'Sandbox tool declarations',
      description: `TypeScript declarations of the tools available inside ${RUN_TOOL}.`,
      mimeType: 'text/typescript',
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/typescript', text: options.declarations.all }] }),
  )
  return server
}

function runInputShape(ceilings: ResolvedLimits) {
  const limit = (name: PerCallLimit, min: number, what: string) =>
    z.int().min(min).optional().describe(`${what} for this call; at most ${ceilings[name]} (larger values are lowered to it).`)
  return {
    code: z
      .string()
      .describe('The program, JavaScript or TypeScript (a markdown code fence is fine). Its last expression, or a top-level `return`, is the result.'),
    timeoutMs: limit('timeoutMs', 1, 'Wall-clock limit in milliseconds, including time spent waiting on tools,'),
    memoryMb: limit('memoryMb', 8, 'Memory limit in MB'),
    maxToolCalls: limit('maxToolCalls', 0, 'Most tool calls the program may make'),
    maxOutputBytes: limit('maxOutputBytes', 16, 'Largest result, in bytes of JSON'),
  }
}
