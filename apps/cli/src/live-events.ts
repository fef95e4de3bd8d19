import type { RunEvent, RunEventListener } from '@cordon/core'
import { painter } from './colors.js'
import { logLine, type OutputLine } from './format-result.js'

export interface LiveOptions {
  /** Print each console entry as the guest writes it (people's output; never with --json). */
  logs: boolean
  /** `--trace`: a line on stderr for each tool call's start and end. */
  trace: boolean
  colorStderr: boolean
}

/**
 * The run's `onEvent` listener for the command line: what a person should see while the
 * program runs instead of after it. Undefined when there is nothing to stream.
 */
export function liveEvents(options: LiveOptions, write: (line: OutputLine) => void): RunEventListener | undefined {
  if (!options.logs && !options.trace) return undefined
  const paint = painter(options.colorStderr)
  return (event: RunEvent) => {
    if (event.type === 'log') {
      if (options.logs) write(logLine(event))
      return
    }
    if (!options.trace || event.type === 'result') return
    write({ stream: 'stderr', text: paint('dim', traceLine(event)) })
  }
}

/** `tool #1 github.listIssues (27 B) …`, `tool #1 github.listIssues → 340 B in 12 ms`, `tool #2 demo.fail ✗ threw after 3 ms: no access`. */
export function traceLine(event: Exclude<RunEvent, { type: 'log' | 'result' }>): string {
  const call = `tool #${event.callId} ${event.tool}`
  switch (event.type) {
    case 'tool-start':
      return `${call} (${bytes(event.argsBytes)}) …`
    case 'tool-end':
      return `${call} → ${bytes(event.resultBytes)} in ${ms(event.durationMs)}`
    case 'tool-error':
      return `${call} ✗ ${event.reason} after ${ms(event.durationMs)}: ${event.error.message}`
  }
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`
  return `${(n / 1024 / 1024).toFixed(1)} MiB`
}

function ms(n: number): string {
  return n < 10 ? `${n.toFixed(1)} ms` : `${Math.round(n)} ms`
}
