import type { ResolvedLimits } from '@cordon/core'
import type { RefusedTool } from './check-tools.js'
import type { GuestNamespace } from './guest-catalog.js'
import type { UnavailableUpstream } from './start-upstreams.js'

/** Declarations up to this size go into the tool description itself; larger ones are listed by name. */
export const INLINE_DECLARATIONS_CHARS = 8_000

export interface DescriptionInput {
  namespaces: readonly GuestNamespace[]
  declarations: string
  ceilings: ResolvedLimits
  unavailable: readonly UnavailableUpstream[]
  refused: readonly RefusedTool[]
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
      '- Only standard JavaScript built-ins and the tools below exist: no require/import, fetch, process or file system.',
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
  if (input.declarations.length <= INLINE_DECLARATIONS_CHARS) {
    return `Available tools, as TypeScript declarations:\n\`\`\`ts\n${input.declarations}\n\`\`\``
  }
  const lines = withTools.flatMap((ns) => ns.tools.map((tool) => `- ${ns.name}.${tool.guestName}: ${firstLine(tool.description)}`))
  return [
    'Available tools (call get_declarations, optionally with a namespace, for their argument and result types before writing code that uses them):',
    ...lines,
  ].join('\n')
}

function problemsSection(input: DescriptionInput): string | undefined {
  const lines = [
    ...input.unavailable.map(({ name, reason }) => `- ${name}: its server failed to start (${firstLine(reason)})`),
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
