import type { LogEntry, ResolvedLimits, RunInterrupted, RunResult } from '@cordon/core'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { jsonValue } from './json-value.js'

type TextBlock = { type: 'text'; text: string }

const NO_VALUE = 'undefined (the program produced no value: end it with an expression or `return` what you need)'

/**
 * A run as MCP content for the model: first the value as JSON text (or the error with code,
 * message, position and the offending line), then the console output, then notes such as
 * a lowered limit. A failed run is `isError: true`, so clients and models see it failed.
 */
export function formatRunResult(result: RunResult, code: string, ceilings: ResolvedLimits, notes: readonly string[]): CallToolResult {
  if (result.interrupted) return approvalRequest(result)
  const content: TextBlock[] = [text(result.ok ? valueText(result.value) : errorText(result, code, ceilings))]
  const logs = logsText(result.logs, result.stats.logsDropped)
  if (logs !== undefined) content.push(text(logs))
  if (notes.length > 0) content.push(text(notes.map((note) => `note: ${note}`).join('\n')))
  return result.ok ? { content } : { content, isError: true }
}

/** Small values are indented for people reading along; large ones stay compact to spare the model's context. */
const PRETTY_UP_TO_CHARS = 2_000

function valueText(value: unknown): string {
  if (value === undefined) return NO_VALUE
  const compact = JSON.stringify(jsonValue(value))
  return compact.length <= PRETTY_UP_TO_CHARS ? JSON.stringify(JSON.parse(compact), null, 2) : compact
}

function errorText(result: Extract<RunResult, { ok: false }>, code: string, ceilings: ResolvedLimits): string {
  const { error } = result
  const name = error.name !== undefined && !error.message.startsWith(error.name) ? `${error.name}: ` : ''
  const lines = [`${error.code}: ${name}${error.message}`]
  if (error.line !== undefined) {
    lines.push(`at line ${error.line}${error.column === undefined ? '' : `, column ${error.column}`}`)
    lines.push(...codeFrame(code, error.line, error.column))
  }
  if (error.limit !== undefined) {
    const ceiling = ceilings[error.limit.name as keyof ResolvedLimits]
    lines.push(
      ceiling !== undefined && ceiling > error.limit.value
        ? `this call's ${error.limit.name} was ${error.limit.value}; it may be raised up to ${ceiling}, or make the program do less`
        : `${error.limit.name} is ${error.limit.value}, the most this server allows: make the program do less per call`,
    )
  }
  return lines.join('\n')
}

/** The line the error points at, with a caret under the column. */
function codeFrame(code: string, line: number, column: number | undefined): string[] {
  const source = code.split('\n')[line - 1]
  if (source === undefined || source.length > 300) return []
  const gutter = `${line} | `
  const frame = [`${gutter}${source}`]
  if (column !== undefined) frame.push(`${' '.repeat(gutter.length - 2)}| ${' '.repeat(Math.max(0, column - 1))}^`)
  return frame
}

function logsText(logs: readonly LogEntry[], dropped: number): string | undefined {
  if (logs.length === 0 && dropped === 0) return undefined
  const lines = logs.map((entry) => (entry.level === 'log' || entry.level === 'info' ? entry.message : `[${entry.level}] ${entry.message}`))
  if (dropped > 0) lines.push(`… ${dropped} more console entries were dropped (maxLogEntries)`)
  return `console output:\n${lines.join('\n')}`
}

function text(value: string): TextBlock {
  return { type: 'text', text: value }
}

/**
 * A run paused for approval: not an error. The model asks the user, then calls resume_javascript
 * with the continuation and the decision; the continuation is signed, so it cannot be changed.
 */
function approvalRequest(result: RunInterrupted): CallToolResult {
  const { tool, args } = result.interrupt
  const lines = [
    `APPROVAL_REQUIRED: the program wants to call ${tool} with ${JSON.stringify(jsonValue(args))}.`,
    'Ask the user whether to allow it, then call resume_javascript with this continuation and their decision',
    '(approve: true, or approve: false with a reason). Calls made before this one will not be made again.',
    `continuation: ${result.continuation}`,
  ]
  const content: TextBlock[] = [text(lines.join('\n'))]
  const logs = logsText(result.logs, result.stats.logsDropped)
  if (logs !== undefined) content.push(text(logs))
  return { content, structuredContent: { approvalRequired: { tool, args: jsonValue(args), continuation: result.continuation } } }
}
