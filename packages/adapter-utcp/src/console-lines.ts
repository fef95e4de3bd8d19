import type { LogEntry } from '@cordon/core'

/** The prefixes UTCP's code-mode client puts before a line, by console method (it has no `debug`). */
const PREFIXES: Record<LogEntry['level'], string> = { log: '', debug: '', info: '[INFO] ', warn: '[WARN] ', error: '[ERROR] ' }

/**
 * Console entries as UTCP's code-mode client writes them: each argument that is an object
 * pretty-printed as JSON (two spaces), anything else `String`-ed, joined by spaces, after the
 * level's prefix. The arguments come from the run's `logArgs`; an entry whose arguments could not
 * cross (over `maxLogBytes`, a function) keeps cordon's own formatting of them.
 */
export function consoleLines(logs: readonly LogEntry[]): string[] {
  return logs.map((entry) => PREFIXES[entry.level] + ((entry.args && formatted(entry.args)) ?? entry.message))
}

/** The arguments as UTCP joins them; undefined where JSON.stringify throws (a BigInt in an object). */
function formatted(args: readonly unknown[]): string | undefined {
  try {
    return args
      .map((value) => (typeof value === 'object' && value !== null ? JSON.stringify(value, null, 2) : String(value as string)))
      .join(' ')
  } catch {
    return undefined
  }
}
