import type { LogEntry } from '@cordon/core'

/** The prefixes TanStack's own drivers write and its code-mode tool reads back as levels. */
const PREFIXES: Record<LogEntry['level'], string> = { log: '', debug: '', info: 'INFO: ', warn: 'WARN: ', error: 'ERROR: ' }

/**
 * Console entries as TanStack's drivers write them: each argument `JSON.stringify`-ed when it is
 * an object, `String`-ed otherwise, joined by spaces, after the level's prefix. The arguments come
 * from the run's `logArgs`; an entry whose arguments could not cross (over `maxLogBytes`, a
 * function) keeps cordon's own formatting of them.
 */
export function consoleLines(logs: readonly LogEntry[]): string[] {
  return logs.map((entry) => PREFIXES[entry.level] + ((entry.args && formatted(entry.args)) ?? entry.message))
}

/** The arguments as TanStack's drivers join them; undefined where JSON.stringify throws (a BigInt in an object). */
function formatted(args: readonly unknown[]): string | undefined {
  try {
    return args.map((value) => (typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value as string))).join(' ')
  } catch {
    return undefined
  }
}
