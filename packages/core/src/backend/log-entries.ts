import type { LogLevel } from '../result.js'

const LEVELS: Readonly<Record<string, LogLevel>> = { l: 'log', i: 'info', w: 'warn', e: 'error', d: 'debug' }
const LETTERS: Readonly<Record<LogLevel, string>> = { log: 'l', info: 'i', warn: 'w', error: 'e', debug: 'd' }
/**
 * When the guest runtime sends a batch at the latest (the same numbers as in runtime.ts, which is
 * shipped as source and imports nothing): at this many entries, or once its messages reach this
 * many characters.
 */
export const LOG_BATCH_ENTRIES = 256
export const LOG_BATCH_CHARS = 16 * 1024
/** The most characters one batch can have: a full batch but one, the last message, and every entry's prefix. */
export function maxLogBatchChars(maxLogBytes: number): number {
  return LOG_BATCH_CHARS - 1 + (maxLogBytes + 1) + LOG_BATCH_ENTRIES * (2 + MAX_LENGTH_DIGITS)
}

/** More digits than any string length an engine allows: a longer prefix is not a length. */
const MAX_LENGTH_DIGITS = 10

/**
 * Reads the console entries the guest runtime packed for RelayFunctions.log (each one its
 * level's initial, the message's length, `:`, the message) and hands each to `each`, in order.
 * The text comes from the engine, so it is read defensively: at the first malformed entry the
 * rest is dropped and false is returned.
 */
export function unpackLogEntries(entries: string, each: (level: LogLevel, message: string) => void): boolean {
  let at = 0
  while (at < entries.length) {
    const level = LEVELS[entries[at] as string]
    const colon = entries.indexOf(':', at + 1)
    if (level === undefined || colon < 0 || colon === at + 1 || colon - at - 1 > MAX_LENGTH_DIGITS) return false
    const digits = entries.slice(at + 1, colon)
    if (!/^\d+$/.test(digits)) return false
    const end = colon + 1 + Number(digits)
    if (end > entries.length) return false
    each(level, entries.slice(colon + 1, end))
    at = end
  }
  return true
}

/** One entry packed as the guest runtime packs it, for a host that passes entries on (a channel's far side). */
export function packLogEntry(level: LogLevel, message: string): string {
  return LETTERS[level] + message.length + ':' + message
}
