import type { RunEvent } from '@cordon/core'
import { expectOk, summarize, timedRun } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import { sessionRunOk, timedSessionRun } from '../harness/session-run.js'
import type { ConformanceCheck } from '../types.js'

/** Arguments of every kind the value model carries, logged at each level. */
const LOGGED = [
  "console.log('text', 1, -0, null, undefined, true)",
  "console.info({ a: [1, { b: 'c' }] }, [1, 2, 3])",
  'console.warn(new Map([[1, new Set([2])]]), new Date(0), 10n, NaN)',
  'console.error(new Uint8Array([1, 2, 3]))',
  'console.debug()',
].join('\n')

const EXPECTED_ARGS: unknown[][] = [
  ['text', 1, -0, null, undefined, true],
  [{ a: [1, { b: 'c' }] }, [1, 2, 3]],
  [new Map([[1, new Set([2])]]), new Date(0), 10n, NaN],
  [new Uint8Array([1, 2, 3])],
  [],
]

export const logArgsChecks: ConformanceCheck[] = [
  {
    group: 'logs',
    name: 'logArgs: each entry carries its console call’s arguments as values beside the message, in entries and events alike',
    async run({ sandbox }) {
      const events: RunEvent[] = []
      const { result } = await timedRun(sandbox, LOGGED, { logArgs: true, onEvent: (event) => events.push(event) })
      expectOk(result)
      expectSameValue(
        result.logs.map((entry) => entry.level),
        ['log', 'info', 'warn', 'error', 'debug'],
        'the levels',
      )
      expectSameValue(
        result.logs.map((entry) => entry.args),
        EXPECTED_ARGS,
        'the arguments of each entry',
      )
      if (result.logs[0]?.message !== 'text 1 -0 null undefined true') {
        throw new Error(`the message is still formatted as without logArgs, got ${summarize(result.logs[0]?.message)}`)
      }
      const logged = events.flatMap((event) => (event.type === 'log' ? [event.args] : []))
      expectSameValue(logged, EXPECTED_ARGS, 'the arguments in the log events')
    },
  },
  {
    group: 'logs',
    name: 'logArgs: arguments over maxLogBytes or holding a function leave that entry without args; off by default',
    async run({ sandbox }) {
      const code = ["console.log('x'.repeat(500))", 'console.log(() => 1)', "console.log('fits')"].join('\n')
      const { result } = await timedRun(sandbox, code, { logArgs: true, maxLogBytes: 100 })
      expectOk(result)
      const seen = result.logs.map((entry) => ('args' in entry ? entry.args : 'none'))
      expectSameValue(seen, ['none', 'none', ['fits']], 'which entries carry args')
      const plain = await timedRun(sandbox, "console.log('a', 1)")
      if (plain.result.logs.some((entry) => 'args' in entry)) throw new Error('entries carry args without logArgs')
    },
  },
  {
    group: 'logs',
    name: 'logArgs: a session’s runs carry arguments when the session or the run asks',
    requires: { sessions: true },
    async run({ sandbox }) {
      const session = await sandbox.createSession({ logArgs: true })
      try {
        await sessionRunOk(session, 'globalThis.n = 1')
        const { result } = await timedSessionRun(session, "console.log('n', n)")
        expectSameValue(result.logs[0]?.args, ['n', 1], 'a session run’s arguments')
        const off = await timedSessionRun(session, "console.log('n', n)", { logArgs: false })
        if (off.result.logs.some((entry) => 'args' in entry)) throw new Error('a run with logArgs: false still carries args')
      } finally {
        await session.dispose()
      }
    },
  },
]
