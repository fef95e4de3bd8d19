import type { LogEntry } from '@cordon/core'

/**
 * Console entries as the lines Mastra's code mode returns: no level, and each argument a string
 * as it is, anything else as JSON (`String(value)` where JSON.stringify throws, nothing where it
 * gives undefined), joined by spaces. The arguments come from the run's `logArgs`; an entry whose
 * arguments could not cross (over `maxLogBytes`, a function) keeps cordon's own formatting.
 */
export function consoleLines(logs: readonly LogEntry[]): string[] {
  return logs.map((entry) => (entry.args === undefined ? entry.message : entry.args.map(argumentText).join(' ')))
}

function argumentText(value: unknown): string {
  if (typeof value === 'string') return value
  try {
    return JSON.stringify(value) ?? ''
  } catch {
    return String(value)
  }
}
