import { LOG_LEVELS, type LogEntry, type LogLevel } from '../result.js'
import { decodeValue, utf8Length } from '../wire.js'

export const TRUNCATION_MARKER = '…[truncated]'

/** Keeps the first `maxEntries` entries, each cut to `maxBytes` UTF-8 bytes with a visible marker. */
export class LogCollector {
  readonly entries: LogEntry[] = []
  dropped = 0
  closed = false

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
    /** Told of each entry as it is kept (the run's `log` events). */
    private readonly onKept?: (entry: LogEntry) => void,
  ) {}

  /** `args`: the console call's arguments in wire format (`logArgs`); kept when they decode to an array within the cap. */
  add(level: unknown, message: unknown, args?: unknown): void {
    if (this.closed) return
    if (this.entries.length >= this.maxEntries) {
      this.dropped++
      return
    }
    const safeLevel: LogLevel = LOG_LEVELS.includes(level as LogLevel) ? (level as LogLevel) : 'log'
    const entry: LogEntry = { level: safeLevel, message: cut(typeof message === 'string' ? message : String(message), this.maxBytes) }
    const values = typeof args === 'string' ? argsOf(args, this.maxBytes) : undefined
    if (values !== undefined) entry.args = values
    this.entries.push(entry)
    this.onKept?.(entry)
  }
}

/** The arguments' wire text as values; undefined when it is over the cap, malformed, or not an array. */
function argsOf(wire: string, maxBytes: number): unknown[] | undefined {
  if (wire.length > maxBytes || utf8Length(wire) > maxBytes) return undefined
  try {
    const values = decodeValue(wire)
    return Array.isArray(values) ? values : undefined
  } catch {
    return undefined
  }
}

function cut(message: string, maxBytes: number): string {
  // Fast path: even at 3 bytes per UTF-16 unit the message fits.
  if (message.length * 3 <= maxBytes || utf8Length(message) <= maxBytes) return message
  let end = Math.min(message.length, maxBytes)
  while (end > 0 && utf8Length(message.slice(0, end)) > maxBytes) end = Math.floor(end * 0.9)
  // Do not split a surrogate pair.
  const last = message.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return message.slice(0, end) + TRUNCATION_MARKER
}
