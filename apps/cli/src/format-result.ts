import { inspect } from 'node:util'
import type { LogEntry, RunError, RunResult, RunStats } from '@cordon/core'
import { codeFrame } from './code-frame.js'
import { painter } from './colors.js'
import type { Program } from './read-program.js'

/** One piece of output, in order: guest logs (unless they were streamed), then the value or the error, then stats. */
export interface OutputLine {
  stream: 'stdout' | 'stderr'
  text: string
}

export interface HumanFormat {
  colorStdout: boolean
  colorStderr: boolean
  /** Append a one-line summary of `stats` (`--stats`). */
  stats: boolean
  /** The logs were printed live as the guest wrote them (`onEvent`): do not print them again. */
  logsStreamed?: boolean
}

/** Where each limit can be changed from the command line, for "raise it with …" hints. */
const LIMIT_FLAGS: Record<string, string> = {
  timeoutMs: '--timeout <ms>',
  memoryMb: '--memory <mb>',
  maxOutputBytes: '--max-output <bytes>',
  maxToolCalls: '--max-tool-calls <n>',
  maxCodeBytes: 'CORDON_MAX_CODE_BYTES',
}

/**
 * A run as a person reads it. Logs come out as the guest wrote them, like Node's console:
 * log/info/debug on stdout, warn/error on stderr. The value follows on stdout, shown like
 * util.inspect (nothing when it is `undefined`); an error goes to stderr with its code, the
 * guest's message and where it happened in the program.
 */
export function formatRunResult(result: RunResult, program: Program, format: HumanFormat): OutputLine[] {
  const lines: OutputLine[] = format.logsStreamed === true ? [] : result.logs.map(logLine)
  const err = painter(format.colorStderr)
  if (result.stats.logsDropped > 0) {
    lines.push({
      stream: 'stderr',
      text: err('dim', `(${result.stats.logsDropped} more log entries dropped: over maxLogEntries, see CORDON_MAX_LOG_ENTRIES)`),
    })
  }
  if (result.ok) {
    if (result.value !== undefined) lines.push({ stream: 'stdout', text: inspectValue(result.value, format.colorStdout) })
  } else {
    for (const text of formatRunError(result.error, program, format.colorStderr)) lines.push({ stream: 'stderr', text })
  }
  if (format.stats) lines.push({ stream: 'stderr', text: err('dim', formatStats(result.stats)) })
  return lines
}

export function inspectValue(value: unknown, colors: boolean): string {
  return inspect(value, { colors, depth: null, maxArrayLength: null, maxStringLength: null })
}

/** One console entry as the guest wrote it: log/info/debug on stdout, warn/error on stderr. */
export function logLine(entry: LogEntry): OutputLine {
  return { stream: entry.level === 'warn' || entry.level === 'error' ? 'stderr' : 'stdout', text: entry.message }
}

export function formatRunError(error: RunError, program: Program, color: boolean): string[] {
  const paint = painter(color)
  const what = error.name && !error.message.startsWith(`${error.name}:`) ? `${error.name}: ${error.message}` : error.message
  const lines = [`${paint('red', paint('bold', error.code))}: ${what}`]
  if (error.line !== undefined) {
    lines.push(paint('dim', `    at ${program.name}:${error.line}${error.column !== undefined ? `:${error.column}` : ''}`))
    lines.push(...codeFrame(program.source, error.line, error.column))
  }
  if (error.limit) {
    const flag = LIMIT_FLAGS[error.limit.name]
    lines.push(`  limit: ${error.limit.name} = ${error.limit.value}${flag ? ` (change it with ${flag})` : ''}`)
  }
  return lines
}

function formatStats(stats: RunStats): string {
  const parts = [`backend ${stats.backend}`, `${round(stats.wallMs)} ms`]
  if (stats.cpuMs !== undefined) parts.push(`cpu ${round(stats.cpuMs)} ms`)
  if (stats.heapBytes !== undefined) parts.push(`heap ${(stats.heapBytes / 1024 / 1024).toFixed(1)} MB`)
  parts.push(`${stats.toolCalls} tool call${stats.toolCalls === 1 ? '' : 's'}`)
  if (stats.logsDropped > 0) parts.push(`${stats.logsDropped} logs dropped`)
  return `stats: ${parts.join(', ')}`
}

function round(ms: number): string {
  return ms < 10 ? ms.toFixed(1) : String(Math.round(ms))
}
