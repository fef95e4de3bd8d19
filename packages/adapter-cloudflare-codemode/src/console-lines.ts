import type { LogEntry } from '@cordon/core'

/**
 * The level prefixes of Cloudflare's executors (`[warn] `, `[error] `; nothing for `log`). They do
 * not keep `info` and `debug` lines; cordon does, with prefixes of the same kind.
 */
const PREFIXES: Record<LogEntry['level'], string> = { log: '', info: '[info] ', debug: '[debug] ', warn: '[warn] ', error: '[error] ' }

/**
 * Console entries as Cloudflare's executors write them: each argument `String`-ed (an object is
 * `[object Object]`, an array its items joined by commas), joined by spaces, after the level's
 * prefix. The arguments come from the run's `logArgs`; an entry whose arguments could not cross
 * (over `maxLogBytes`, a function), or that `String` refuses, keeps cordon's own formatting.
 */
export function consoleLines(logs: readonly LogEntry[]): string[] {
  return logs.map((entry) => PREFIXES[entry.level] + ((entry.args && joined(entry.args)) ?? entry.message))
}

/** undefined where String throws: an object whose `toString` key holds data, not a function. */
function joined(args: readonly unknown[]): string | undefined {
  try {
    return args.map((value) => String(value)).join(' ')
  } catch {
    return undefined
  }
}
