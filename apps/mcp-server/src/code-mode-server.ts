import type { ResolvedLimits, RunEventListener, RunResult, Sandbox, ToolSet } from '@cordon/core'
import { settleByElicitation } from './approval-elicitation.js'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { limitsForCall, type PerCallLimit } from './call-limits.js'
import { formatRunResult } from './format-run-result.js'
import { runProgress } from './run-progress.js'
import type { CatalogView } from './catalog.js'
import { searchTools } from './search-tools.js'
import type { RunGate } from './run-gate.js'

export const RUN_TOOL = 'run_javascript'
export const DECLARATIONS_TOOL = 'get_declarations'
export const SEARCH_TOOL = 'search_tools'
export const DECLARATIONS_URI = 'cordon://declarations.d.ts'
export const RESUME_TOOL = 'resume_javascript'

export interface CodeModeServerOptions {
  version: string
  sandbox: Sandbox
  /** The upstream tools as they are now: their tool set, declarations and namespaces (read at each request). */
  catalog: () => Pick<CatalogView, 'tools' | 'declarations' | 'namespaces'>
  /** The description lists tool names only: tell the model to discover before it calls. */
  discovery: boolean
  /** run_javascript's description as it is now (it changes when an upstream goes down or comes back). */
  description: () => string
  /** Calls the listener when description() may have changed; returns the function that stops it. */
  watchDescription?: (listener: () => void) => () => void
  ceilings: ResolvedLimits
  /** The limits a call may lower (memoryMb only where the backend enforces it). */
  perCallLimits: readonly PerCallLimit[]
  /** Some upstream tools need approval (config `needsApproval`): offer resume_javascript. */
  approvals?: boolean
  /** Admission control for this server's client (HTTP); none over stdio. */
  runGate?: RunGate
}

/** The MCP server: `run_javascript`, `get_declarations`, `search_tools`, and the declarations as a resource. */
export function createCodeModeServer(options: CodeModeServerOptions): McpServer {
  const { sandbox, ceilings } = options
  const server = new McpServer(
    { name: 'cordon-mcp', version: options.version },
    {
      instructions:
        `${RUN_TOOL} runs JavaScript in a sandbox where the configured MCP servers' tools are async functions ` +
        `(\`await server.tool(args)\`). Prefer one program that makes several calls and returns only what is needed ` +
        `over many separate tool calls. ` +
        (options.discovery
          ? `There are many tools, so ${RUN_TOOL}'s description lists only their names: find tools with ${SEARCH_TOOL}, ` +
            `then get the types of the ones you need with ${DECLARATIONS_TOOL}({ tools: [...] }) before writing the program.`
          : `${DECLARATIONS_TOOL} gives the TypeScript types of every tool.`),
    },
  )

  let description = options.description()
  const runTool = server.registerTool(
    RUN_TOOL,
    {
      title: 'Run JavaScript in a sandbox',
      description,
      inputSchema: runInputShape(ceilings),
      // What a program does depends on the upstream tools it calls.
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    async ({ code, ...requested }, extra): Promise<CallToolResult> => {
      const { limits, notes } = limitsForCall(ceilings, requested, options.perCallLimits)
      return gated(extra, async (onEvent) => {
        const tools = options.catalog().tools
        const result = await sandbox.run(code, { tools, ...limits, signal: extra.signal, ...(onEvent && { onEvent }) })
        return formatRunResult(await settle(result, tools, extra, onEvent), code, ceilings, notes)
      })
    },
  )

  /** A paused run: ask the user directly when the client supports elicitation; else the model gets the continuation. */
  function settle(result: RunResult, tools: ToolSet, extra: RequestExtra, onEvent: RunEventListener | undefined): Promise<RunResult> {
    if (!result.interrupted || server.server.getClientCapabilities()?.elicitation === undefined) return Promise.resolve(result)
    return settleByElicitation(result, { sandbox, tools, extra, onEvent })
  }

  /** One run under the client's admission gate, with progress when the client asked for it. */
  async function gated(
    extra: RequestExtra,
    run: (onEvent: RunEventListener | undefined) => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    const release = options.runGate === undefined ? () => undefined : options.runGate.tryEnter()
    if (release === undefined) {
      const limit = options.runGate!.limit
      return {
        isError: true,
        content: [
          {
            type: 'text',
            text: `TOO_MANY_RUNS: this client already has ${limit} ${RUN_TOOL} calls in flight, the most this server allows; wait for one to finish`,
          },
        ],
      }
    }
    try {
      // The client asked for progress: the program's console output and tool calls as they happen.
      const progressToken = extra._meta?.progressToken
      const progress = progressToken === undefined ? undefined : runProgress(progressToken, extra.sendNotification)
      const result = await run(progress?.onEvent)
      await progress?.sent()
      return result
    } catch (error) {
      // run() and resume() throw only for host-side problems (bad options, a disposed sandbox, a refused continuation).
      const { code: errorCode = 'INTERNAL', message } = error as { code?: string; message: string }
      return { isError: true, content: [{ type: 'text', text: `${errorCode}: ${message}` }] }
    } finally {
      release()
    }
  }

  if (options.approvals === true) {
    server.registerTool(
      RESUME_TOOL,
      {
        title: 'Resume a JavaScript run that waits for approval',
        description:
          `Continues a ${RUN_TOOL} program that paused because it called a tool that needs the user's approval. ` +
          `Ask the user first and pass their decision: approve true runs the tool and the program goes on; approve false ` +
          `makes the tool call throw an Error with the reason, which the program may catch. Tool calls made before the ` +
          `pause are not made again. The program may pause again at the next call that needs approval.`,
        inputSchema: {
          continuation: z
            .string()
            .min(1)
            .describe(`The continuation from the ${RUN_TOOL} (or ${RESUME_TOOL}) result that asked for approval.`),
          approve: z.boolean().describe("The user's decision."),
          reason: z.string().optional().describe('Why the user refused (the program sees it as the error message).'),
        },
        // Approving runs the tool the program asked for.
        annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
      },
      async ({ continuation, approve, reason }, extra): Promise<CallToolResult> =>
        gated(extra, async (onEvent) => {
          const decision = approve ? { answer: true } : { reject: reason ?? 'the user did not approve this call' }
          const tools = options.catalog().tools
          const result = await sandbox.resume(continuation, { ...decision, tools, signal: extra.signal, ...(onEvent && { onEvent }) })
          return formatRunResult(await settle(result, tools, extra, onEvent), '', ceilings, [])
        }),
    )
  }

  if (options.watchDescription !== undefined) {
    // Connected clients hear about it through notifications/tools/list_changed (the SDK sends it on update).
    const stop = options.watchDescription(() => {
      const now = options.description()
      if (now === description) return
      description = now
      runTool.update({ description })
      declarationsTool.update({ description: declarationsDescription() })
    })
    const onclose = server.server.onclose
    server.server.onclose = () => {
      stop()
      onclose?.()
    }
  }

  const namespaceList = () => [...options.catalog().declarations.byNamespace.keys()].join(', ') || '(none)'
  const declarationsDescription = () =>
    `The TypeScript declarations of the tools ${RUN_TOOL} programs can call, generated from their JSON Schemas: ` +
    `argument types, and result types where a tool declares an output schema. Ask for the tools you will use ` +
    `(\`tools: ["namespace.tool"]\`), one namespace, or everything. Namespaces: ${namespaceList()}.`
  const declarationsTool = server.registerTool(
    DECLARATIONS_TOOL,
    {
      title: 'TypeScript declarations of the sandbox tools',
      description: declarationsDescription(),
      inputSchema: {
        tools: z
          .array(z.string())
          .max(200)
          .optional()
          .describe('Only these tools, each as "namespace.tool" (e.g. from search_tools or the run_javascript description).'),
        namespace: z.string().optional().describe('Only this namespace (an upstream server name). With neither, every namespace.'),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ tools, namespace }): CallToolResult => {
      const { declarations } = options.catalog()
      if (tools !== undefined && tools.length > 0) {
        const { text, missing } = declarations.forTools(tools)
        const blocks = text === '' ? [] : [{ type: 'text' as const, text }]
        if (missing.length === 0) return { content: blocks }
        const note = `No tool ${missing.map((label) => `"${label}"`).join(', ')}: use "namespace.tool" as ${SEARCH_TOOL} lists them. Namespaces: ${namespaceList()}.`
        return { isError: blocks.length === 0, content: [...blocks, { type: 'text', text: note }] }
      }
      if (namespace === undefined) return { content: [{ type: 'text', text: declarations.all || '// No tools are configured.' }] }
      const text = declarations.byNamespace.get(namespace)
      if (text === undefined) {
        return { isError: true, content: [{ type: 'text', text: `No namespace "${namespace}". Namespaces: ${namespaceList()}.` }] }
      }
      return { content: [{ type: 'text', text }] }
    },
  )

  server.registerTool(
    SEARCH_TOOL,
    {
      title: 'Find sandbox tools by keywords',
      description:
        `Finds the tools ${RUN_TOOL} programs can call by keywords matched against their names and descriptions ` +
        `(e.g. "create issue", "search messages"). Gives each match as "namespace.tool: description", best first; ` +
        `then call ${DECLARATIONS_TOOL} with the ones you need for their types.`,
      inputSchema: {
        query: z.string().min(1).describe('Keywords: what the tool should do, or part of its name.'),
        limit: z.int().min(1).max(50).optional().describe('Most results to return (default 10).'),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ query, limit = 10 }): CallToolResult => {
      const hits = searchTools(options.catalog().namespaces, query, limit)
      if (hits.length === 0) {
        return {
          content: [
            {
              type: 'text',
              text: `No tool matches "${query}". Try other words, or ${DECLARATIONS_TOOL} for a whole namespace. Namespaces: ${namespaceList()}.`,
            },
          ],
        }
      }
      const lines = hits.map(({ label, tool }) => `- ${label}: ${firstLine(tool.title ?? tool.description)}`)
      const next = `Types: ${DECLARATIONS_TOOL}({ tools: [${hits.map(({ label }) => JSON.stringify(label)).join(', ')}] })`
      return { content: [{ type: 'text', text: [`Tools matching "${query}", best first:`, ...lines, next].join('\n') }] }
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
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/typescript', text: options.catalog().declarations.all }] }),
  )
  return server
}

type RequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>

function runInputShape(ceilings: ResolvedLimits) {
  const limit = (name: PerCallLimit, min: number, what: string) =>
    z.int().min(min).optional().describe(`${what} for this call; at most ${ceilings[name]} (larger values are lowered to it).`)
  return {
    code: z
      .string()
      .describe(
        'The program, JavaScript or TypeScript (a markdown code fence is fine). Its last expression, or a top-level `return`, is the result.',
      ),
    timeoutMs: limit('timeoutMs', 1, 'Wall-clock limit in milliseconds, including time spent waiting on tools,'),
    memoryMb: limit('memoryMb', 8, 'Memory limit in MB'),
    maxToolCalls: limit('maxToolCalls', 0, 'Most tool calls the program may make'),
    maxOutputBytes: limit('maxOutputBytes', 16, 'Largest result, in bytes of JSON'),
  }
}

function firstLine(text: string | undefined): string {
  const line = (text ?? '').trim().split('\n')[0] ?? ''
  return line.length > 200 ? `${line.slice(0, 197)}...` : line || '(no description)'
}
