import type { ResolvedLimits } from '@cordon/core'
import type { RefusedTool } from './check-tools.js'
import type { GuestNamespace } from './guest-catalog.js'
import type { UnavailableUpstream } from './start-upstreams.js'

/** Declarations up to this size go into the tool description itself; larger ones are listed by name. */
export const INLINE_DECLARATIONS_CHARS = 8_000

/** Above this many tools the description lists names only (progressive discovery); `--discovery-threshold`. */
export const DEFAULT_DISCOVERY_THRESHOLD = 30

/** In discovery mode, the tool names listed take at most about this many characters in all. */
export const DISCOVERY_NAMES_CHARS = 3_000

export interface DescriptionInput {
  namespaces: readonly GuestNamespace[]
  declarations: string
  ceilings: ResolvedLimits
  unavailable: readonly UnavailableUpstream[]
  refused: readonly RefusedTool[]
  /** Upstreams that started but cannot be reached now (they come back by themselves). */
  down?: readonly UnavailableUpstream[]
  /** More tools than this: list namespaces and tool names only, and send the model to search_tools / get_declarations. */
  discoveryThreshold?: number
  /** The config's `fetch.allow`: the program has a fetch limited to these origins. */
  fetchOrigins?: readonly string[]
}

export function toolCount(namespaces: readonly GuestNamespace[]): number {
  return namespaces.reduce((sum, ns) => sum + ns.tools.length, 0)
}

/** Whether the catalog is large enough for the description to list tool names only. */
export function usesDiscovery(input: Pick<DescriptionInput, 'namespaces' | 'discoveryThreshold'>): boolean {
  return toolCount(input.namespaces) > (input.discoveryThreshold ?? DEFAULT_DISCOVERY_THRESHOLD)
}

/**
 * The description of run_javascript: what the model reads before writing a program. It says
 * how to call tools and produce a value, what is not there, the limits, and which tools
 * exist — their TypeScript declarations when they fit, else their names and a pointer to
 * get_declarations.
 */
export function runToolDescription(input: DescriptionInput): string {
  const { ceilings } = input
  const example = firstTool(input.namespaces) ?? 'ns.tool'
  const parts = [
    'Run a JavaScript (or TypeScript) program in an isolated sandbox and get back its value and console output. ' +
      'Use it to do several tool calls in one step: call tools, loop, filter and combine their results in code, and return only what is needed.',
    [
      'How to write the program:',
      `- Tools are async functions grouped by server: \`const r = await ${example}({ ... })\`. Each takes one object argument, checked against the tool's input schema. Independent calls can run together with Promise.all.`,
      '- The value of the last expression is the result, or use `return`. Top-level `await` works. Return plain data (objects, arrays, strings, numbers); it comes back as JSON.',
      '- console.log/info/warn/error output is captured and returned after the value.',
      '- A tool that fails throws an Error (catch it with try/catch); its message says why.',
      input.fetchOrigins === undefined
        ? '- Only standard JavaScript built-ins and the tools below exist: no require/import, fetch, process or file system.'
        : `- \`fetch(url, init)\` (with Headers, Request, Response) reaches only these origins: ${input.fetchOrigins.join(', ')}. Otherwise only standard JavaScript built-ins and the tools below exist: no require/import, process or file system.`,
      `- Limits per call: ${ceilings.timeoutMs} ms, ${ceilings.memoryMb} MB of memory, ${ceilings.maxToolCalls} tool calls, a ${ceilings.maxOutputBytes}-byte result. The optional input fields can lower them, never raise them.`,
    ].join('\n'),
    toolsSection(input),
  ]
  const problems = problemsSection(input)
  if (problems !== undefined) parts.push(problems)
  return parts.join('\n\n')
}

function toolsSection(input: DescriptionInput): string {
  const withTools = input.namespaces.filter((ns) => ns.tools.length > 0)
  if (withTools.length === 0) return 'No tools are configured: the program can only compute with JavaScript built-ins.'
  if (usesDiscovery(input)) return discoverySection(withTools)
  if (input.declarations.length <= INLINE_DECLARATIONS_CHARS) {
    return `Available tools, as TypeScript declarations:\n\`\`\`ts\n${input.declarations}\n\`\`\``
  }
  const lines = withTools.flatMap((ns) => ns.tools.map((tool) => `- ${ns.name}.${tool.guestName}: ${firstLine(tool.description)}`))
  return [
    'Available tools (call get_declarations, optionally with a namespace, for their argument and result types before writing code that uses them):',
    ...lines,
  ].join('\n')
}

/**
 * Progressive discovery: the model sees which namespaces and tools exist, and fetches the
 * types of only the ones it needs. Each namespace gets an equal share of the name budget;
 * names past it are counted, not listed, and search_tools finds them.
 */
function discoverySection(withTools: readonly GuestNamespace[]): string {
  const total = toolCount(withTools)
  const share = Math.floor(DISCOVERY_NAMES_CHARS / withTools.length)
  const lines = withTools.map((ns) => {
    const listed: string[] = []
    let used = 0
    for (const tool of ns.tools) {
      if (used + tool.guestName.length + 2 > share) break
      listed.push(tool.guestName)
      used += tool.guestName.length + 2
    }
    const rest = ns.tools.length - listed.length
    const more = rest === 0 ? '' : `${listed.length > 0 ? ', ' : ''}… ${rest} more`
    return `- ${ns.name} (${ns.tools.length}): ${listed.join(', ')}${more}`
  })
  const example = withTools[0]!
  return [
    `Available tools: ${total} in ${withTools.length} namespaces, listed by name only. Before calling a tool, get its argument and result types with ` +
      `get_declarations({ tools: ["${example.name}.${example.tools[0]!.guestName}", ...] }); find tools by what they do with search_tools({ query: "..." }).`,
    ...lines,
  ].join('\n')
}

function problemsSection(input: DescriptionInput): string | undefined {
  const lines = [
    ...input.unavailable.map(({ name, reason }) => `- ${name}: its server failed to start (${firstLine(reason)})`),
    ...(input.down ?? []).map(({ name, reason }) => `- ${name}: unavailable right now, calls to its tools throw (${firstLine(reason)})`),
    ...input.refused.map(({ label, reason }) => `- ${label}: left out (${firstLine(reason)})`),
  ]
  return lines.length === 0 ? undefined : ['Not available in this session:', ...lines].join('\n')
}

function firstTool(namespaces: readonly GuestNamespace[]): string | undefined {
  for (const ns of namespaces) {
    const tool = ns.tools[0]
    if (tool !== undefined) return `${ns.name}.${tool.guestName}`
  }
  return undefined
}

function firstLine(text: string | undefined): string {
  const line = (text ?? '').trim().split('\n')[0] ?? ''
  return line.length > 160 ? `${line.slice(0, 157)}...` : line || '(no description)'
}
