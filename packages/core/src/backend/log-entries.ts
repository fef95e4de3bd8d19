import type { LogLevel } from '../result.js'

const LEVELS: Readonly<Record<string, LogLevel>> = { l: 'log', i: 'info', w: 'warn', e: 'error', d: 'debug' }
/** An entry that carries its console call's arguments (the `logArgs` option) has the letter in upper case. */
const LEVELS_WITH_ARGS: Readonly<Record<string, LogLevel>> = { L: 'log', I: 'info', W: 'warn', E: 'error', D: 'debug' }
const LETTERS: Readonly<Record<LogLevel, string>> = { log: 'l', info: 'i', warn: 'w', error: 'e', debug: 'd' }
/**
 * When the guest runtime sends a batch at the latest (the same numbers as in runtime.ts, which is
 * shipped as source and imports nothing): at this many entries, or once its messages reach this
 * many characters.
 */
export const LOG_BATCH_ENTRIES = 256
export const LOG_BATCH_CHARS = 16 * 1024
/**
 * The most characters one batch can have: a full batch but one, the last entry (its message and
 * its arguments' wire, each within maxLogBytes), and every entry's two prefixes.
 */
export function maxLogBatchChars(maxLogBytes: number): number {
  return LOG_BATCH_CHARS - 1 + 2 * (maxLogBytes + 1) + LOG_BATCH_ENTRIES * 2 * (2 + MAX_LENGTH_DIGITS)
}

/** More digits than any string length an engine allows: a longer prefix is not a length. */
const MAX_LENGTH_DIGITS = 10

/**
 * Reads the console entries the guest runtime packed for RelayFunctions.log (each one its
 * level's initial, the message's length, `:`, the message; with the initial in upper case, the
 * arguments' wire text follows, packed the same way) and hands each to `each`, in order.
 * The text comes from the engine, so it is read defensively: at the first malformed entry the
 * rest is dropped and false is returned.
 */
export function unpackLogEntries(entries: string, each: (level: LogLevel, message: string, args?: string) => void): boolean {
  let at = 0
  while (at < entries.length) {
    const letter = entries[at] as string
    const level = LEVELS[letter] ?? LEVELS_WITH_ARGS[letter]
    if (level === undefined) return false
    const message = lengthPrefixed(entries, at + 1)
    if (message === undefined) return false
    at = message.end
    if (LEVELS[letter] !== undefined) {
      each(level, message.text)
      continue
    }
    const args = lengthPrefixed(entries, at)
    if (args === undefined) return false
    at = args.end
    each(level, message.text, args.text)
  }
  return true
}

/** The text packed at `from` as `<length>:<text>`, and where it ends; undefined if malformed. */
function lengthPrefixed(entries: string, from: number): { text: string; end: number } | undefined {
  const colon = entries.indexOf(':', from)
  if (colon < 0 || colon === from || colon - from > MAX_LENGTH_DIGITS) return undefined
  const digits = entries.slice(from, colon)
  if (!/^\d+$/.test(digits)) return undefined
  const end = colon + 1 + Number(digits)
  if (end > entries.length) return undefined
  return { text: entries.slice(colon + 1, end), end }
}

/** One entry packed as the guest runtime packs it, for a host that passes entries on (a channel's far side). */
export function packLogEntry(level: LogLevel, message: string, args?: string): string {
  if (args === undefined) return LETTERS[level] + message.length + ':' + message
  return LETTERS[level].toUpperCase() + message.length + ':' + message + args.length + ':' + args
}
