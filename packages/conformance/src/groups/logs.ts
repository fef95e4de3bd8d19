import type { LogEntry } from '@cordon/core'
import {
  expectDeadline,
  expectError,
  expectOk,
  loggedAnything,
  logMessages,
  summarize,
  timedRun,
  timedRunThatStarts,
} from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'
import { logArgsChecks } from './logs-args.js'

const TRUNCATION_MARKER = '…[truncated]'
const utf8 = (text: string) => new TextEncoder().encode(text).length

function expectLogs(actual: readonly LogEntry[], expected: readonly LogEntry[]): void {
  expectSameValue(
    actual.map((entry) => ({ level: entry.level, message: entry.message })),
    expected,
    'the logs',
  )
}

function formatted(name: string, code: string, message: string): ConformanceCheck {
  return {
    group: 'logs',
    name: `formatting: ${name}`,
    async run({ sandbox }) {
      const { result } = await timedRun(sandbox, code)
      expectOk(result)
      expectLogs(result.logs, [{ level: 'log', message }])
    },
  }
}

export const logsChecks: readonly ConformanceCheck[] = [
  {
    group: 'logs',
    name: 'console.log/info/warn/error/debug give their level',
    async run({ sandbox }) {
      const { result } = await timedRun(
        sandbox,
        "console.log('l'); console.info('i'); console.warn('w'); console.error('e'); console.debug('d')",
      )
      expectOk(result)
      expectLogs(result.logs, [
        { level: 'log', message: 'l' },
        { level: 'info', message: 'i' },
        { level: 'warn', message: 'w' },
        { level: 'error', message: 'e' },
        { level: 'debug', message: 'd' },
      ])
    },
  },
  formatted('a string is logged as is', "console.log('it\\'s \"quoted\" ✓')", 'it\'s "quoted" ✓'),
  // An engine bridge that reads C strings would end the entry (or its whole batch) at the first NUL.
  formatted('NUL characters are kept', "console.log('\\u0000a\\u0000b', 1)", '\u0000a\u0000b 1'),
  formatted('several arguments are joined by a space', "console.log('a', 1, true, null, undefined)", 'a 1 true null undefined'),
  formatted('an object like Node', "console.log({ a: 1, b: 'x' })", "{ a: 1, b: 'x' }"),
  formatted('an array like Node', 'console.log([1, 2, 3])', '[ 1, 2, 3 ]'),
  formatted('empty object and array like Node', 'console.log({}, [])', '{} []'),
  formatted('a Map like Node', "console.log(new Map([['a', 1]]))", "Map(1) { 'a' => 1 }"),
  formatted('%s and %d format specifiers', "console.log('%s has %d items', 'cart', 3)", 'cart has 3 items'),
  {
    group: 'logs',
    name: 'order is kept across awaits, timers and tool calls',
    async run({ sandbox }) {
      const code = [
        "console.log('1')",
        'await null',
        "console.log('2')",
        "const v = await t.echo('x')",
        "console.log('3', v)",
        'await new Promise((resolve) => setTimeout(resolve, 5))',
        "console.log('4')",
        "await Promise.all([t.echo(1).then(() => console.log('5a')), null])",
        "console.log('6')",
      ].join('\n')
      const { result } = await timedRun(sandbox, code, { tools: { 't.echo': { execute: (x: unknown) => x } } })
      expectOk(result)
      expectSameValue(logMessages(result), ['1', '2', '3 x', '4', '5a', '6'], 'the log messages')
    },
  },
  {
    group: 'logs',
    name: 'logs are kept when the run throws',
    async run({ sandbox }) {
      const { result } = await timedRun(sandbox, "console.log('before'); await null; console.warn('still'); throw new Error('x')")
      expectError(result, 'RUNTIME_ERROR')
      expectLogs(result.logs, [
        { level: 'log', message: 'before' },
        { level: 'warn', message: 'still' },
      ])
    },
  },
  {
    group: 'logs',
    name: 'logs are kept when the run times out',
    async run({ sandbox, options }) {
      const code = "console.log('before'); await new Promise(() => setTimeout(() => {}, 60000))"
      const timed = await timedRunThatStarts(sandbox, code, { timeoutMs: 200 }, loggedAnything)
      expectDeadline(timed, 'TIMEOUT', 200, options.timeoutSlackMs)
      expectSameValue(logMessages(timed.result), ['before'], 'the log messages')
    },
  },
  {
    group: 'logs',
    name: 'every entry written before a spin is kept at TIMEOUT, not only the first of its turn',
    async run({ sandbox, options }) {
      // Entries travel in batches per turn of the guest: a turn cut short by the deadline must still deliver its own.
      const code = "for (let i = 0; i < 40; i++) console.log('line', i)\nwhile (true) {}"
      const timed = await timedRunThatStarts(sandbox, code, { timeoutMs: 300 }, loggedAnything)
      expectDeadline(timed, 'TIMEOUT', 300, options.timeoutSlackMs)
      const expected = Array.from({ length: 40 }, (_, i) => `line ${i}`)
      expectSameValue(logMessages(timed.result), expected, 'the log messages')
    },
  },
  {
    group: 'logs',
    name: 'maxLogEntries keeps the first entries and counts the rest in stats.logsDropped',
    async run({ sandbox }) {
      const { result } = await timedRun(sandbox, 'for (let i = 0; i < 20; i++) console.log(String(i))', { maxLogEntries: 5 })
      expectOk(result)
      expectSameValue(logMessages(result), ['0', '1', '2', '3', '4'], 'the kept messages')
      if (result.stats.logsDropped !== 15) throw new Error(`stats.logsDropped should be 15, got ${result.stats.logsDropped}`)
    },
  },
  {
    group: 'logs',
    name: 'maxLogEntries: 0 keeps no entry and counts them all',
    async run({ sandbox }) {
      const { result } = await timedRun(sandbox, "console.log('a'); console.error('b'); 1", { maxLogEntries: 0 })
      expectOk(result)
      if (result.logs.length !== 0 || result.stats.logsDropped !== 2) {
        throw new Error(`expected no logs and logsDropped 2, got ${summarize(result.logs)} and ${result.stats.logsDropped}`)
      }
    },
  },
  {
    group: 'logs',
    name: `an entry over maxLogBytes is cut and ends with ${TRUNCATION_MARKER}`,
    async run({ sandbox }) {
      const { result } = await timedRun(sandbox, "console.log('x'.repeat(500)); console.log('short')", { maxLogBytes: 100 })
      expectOk(result)
      const [long, short] = logMessages(result)
      if (long === undefined || !long.startsWith('x'.repeat(50)) || !long.endsWith(TRUNCATION_MARKER)) {
        throw new Error(`the long entry should be cut and end with ${TRUNCATION_MARKER}, got ${summarize(long)}`)
      }
      if (utf8(long) > 100 + utf8(TRUNCATION_MARKER)) throw new Error(`the cut entry is ${utf8(long)} bytes, over 100 + the marker`)
      if (short !== 'short') throw new Error(`the next entry should be intact, got ${summarize(short)}`)
    },
  },
  {
    group: 'logs',
    name: 'maxLogBytes counts UTF-8 bytes and never cuts inside a character',
    async run({ sandbox }) {
      const { result } = await timedRun(sandbox, "console.log('é'.repeat(80)); console.log('😀'.repeat(40))", { maxLogBytes: 101 })
      expectOk(result)
      for (const message of logMessages(result)) {
        const body = message.slice(0, -TRUNCATION_MARKER.length)
        if (!message.endsWith(TRUNCATION_MARKER) || /[\uFFFD]|[\uD800-\uDBFF]$/.test(body) || utf8(body) > 101) {
          throw new Error(`expected a cut at a character boundary within 101 bytes, got ${summarize(message)}`)
        }
      }
    },
  },
  {
    group: 'logs',
    name: 'a log flood ends in TIMEOUT with at most maxLogEntries entries',
    async run({ sandbox, options }) {
      const timed = await timedRunThatStarts(sandbox, 'let i = 0; for (;;) console.log(i++)', { timeoutMs: 300 }, loggedAnything)
      expectDeadline(timed, 'TIMEOUT', 300, options.timeoutSlackMs)
      const { logs } = timed.result
      if (logs.length > 100) throw new Error(`kept ${logs.length} entries, over the default maxLogEntries of 100`)
      if (logs[0]?.message !== '0') throw new Error(`the first entries should be kept, got ${summarize(logs[0])}`)
    },
  },
  ...logArgsChecks,
]
