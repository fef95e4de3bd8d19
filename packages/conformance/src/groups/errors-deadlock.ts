import type { RunResult, ToolSet } from '@cordon/core'
import { expectError, expectOk, logMessages, summarize, timedRun } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import { sessionRunOk, timedSessionRun } from '../harness/session-run.js'
import type { ConformanceCheck } from '../types.js'

/**
 * A run whose program waits for a promise that nothing can settle (no tool call, timer or fetch
 * pending) ends DEADLOCK at once. The deadline is long, so ending DEADLOCK rather than TIMEOUT is
 * itself the proof that the run did not sleep until it: no milliseconds are compared.
 */
const LONG_DEADLINE_MS = 20_000

const slowTools = (): ToolSet => ({
  't.slow': {
    execute: (args: unknown) => new Promise((resolve) => setTimeout(() => resolve(args ?? 'slow'), 30)),
  },
})

function expectCode(result: RunResult, code: 'DEADLOCK' | 'TIMEOUT', what: string): void {
  if (result.ok || result.error.code !== code)
    throw new Error(`${what}: expected ${code}, got ${summarize(result.ok ? result : result.error)}`)
}

/** Programs that wait on something pending, and must end with their value. */
const PENDING: [string, string, unknown][] = [
  ['a timer', 'await new Promise((resolve) => setTimeout(resolve, 30))\nreturn 1', 1],
  ['a tool call', "return await t.slow('tool')", 'tool'],
  [
    'an interval cleared on its third tick',
    'let n = 0\nawait new Promise((resolve) => { const id = setInterval(() => { if (++n === 3) { clearInterval(id); resolve() } }, 5) })\nreturn n',
    3,
  ],
  ['10,000 chained microtasks', 'let n = 0\nfor (let i = 0; i < 10000; i++) await null, n++\nreturn n', 10000],
  ['a tool result that starts a timer', 'await t.slow()\nawait new Promise((resolve) => setTimeout(resolve, 10))\nreturn 2', 2],
  ['calls in parallel', "return (await Promise.all([t.slow('a'), t.slow('b')])).join('')", 'ab'],
]

export const deadlockChecks: ConformanceCheck[] = [
  {
    group: 'errors',
    name: 'a program awaiting a promise nothing can settle ends DEADLOCK at once, with its logs',
    async run({ sandbox }) {
      const { result } = await timedRun(sandbox, "console.log('before')\nawait new Promise(() => {})\nreturn 'never'", {
        timeoutMs: LONG_DEADLINE_MS,
      })
      const error = expectError(result, 'DEADLOCK')
      if (!/nothing can settle/.test(error.message))
        throw new Error(`the DEADLOCK message should say why, got ${JSON.stringify(error.message)}`)
      expectSameValue(logMessages(result), ['before'], 'the logs of a deadlocked run')
      const nested = 'async function wait() { await new Promise(() => {}) }\nawait Promise.all([wait(), wait()])'
      expectCode(
        (await timedRun(sandbox, nested, { timeoutMs: LONG_DEADLINE_MS })).result,
        'DEADLOCK',
        'two async functions each awaiting forever',
      )
    },
  },
  {
    group: 'errors',
    name: 'a deadlock comes only once the last timer or tool call is done: a cleared timer, a call nobody awaits',
    async run({ sandbox }) {
      const options = { timeoutMs: LONG_DEADLINE_MS, tools: slowTools() }
      const cleared = 'const id = setTimeout(() => {}, 10000)\nclearTimeout(id)\nawait new Promise(() => {})'
      expectCode((await timedRun(sandbox, cleared, options)).result, 'DEADLOCK', 'a cleared timer')
      const unawaited = "t.slow().then(() => console.log('answered'))\nawait new Promise(() => {})"
      const { result } = await timedRun(sandbox, unawaited, options)
      expectCode(result, 'DEADLOCK', 'a tool call nobody awaits')
      expectSameValue(logMessages(result), ['answered'], 'what the unawaited call logged before the deadlock')
    },
  },
  {
    group: 'errors',
    name: 'never a deadlock while a timer, a tool call or a chain of microtasks is pending',
    async run({ sandbox }) {
      for (const [what, code, expected] of PENDING) {
        const { result } = await timedRun(sandbox, code, { timeoutMs: LONG_DEADLINE_MS, tools: slowTools() })
        if (!result.ok) throw new Error(`${what}: expected the value ${summarize(expected)}, got ${summarize(result.error)}`)
        expectSameValue(result.value, expected, what)
      }
      // An interval that keeps ticking beside a promise that never settles: the deadline ends it.
      const ticking = 'setInterval(() => {}, 5)\nawait new Promise(() => {})'
      expectCode((await timedRun(sandbox, ticking, { timeoutMs: 300 })).result, 'TIMEOUT', 'an interval that keeps ticking')
    },
  },
  {
    group: 'errors',
    name: 'engine work the host does not see (an async WebAssembly compile, a refused import()) is not a deadlock',
    async run({ sandbox }) {
      const wasm = [
        "if (typeof WebAssembly !== 'object') return 'no wasm'",
        'const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])',
        'const module = await WebAssembly.compile(bytes)',
        'const { instance } = await WebAssembly.instantiate(bytes)',
        "return module instanceof WebAssembly.Module && typeof instance === 'object' ? 'compiled' : 'odd'",
      ].join('\n')
      const compiled = expectOk((await timedRun(sandbox, wasm, { timeoutMs: LONG_DEADLINE_MS })).result)
      if (compiled !== 'compiled' && compiled !== 'no wasm') throw new Error(`async WebAssembly compile gave ${summarize(compiled)}`)
      const imported = "try { await import('node:fs'); return 'imported' } catch (e) { return 'refused' }"
      const { result } = await timedRun(sandbox, imported, { timeoutMs: LONG_DEADLINE_MS })
      // A run without modules may refuse the import as a syntax or runtime error; it must not call it a deadlock.
      if (result.ok ? result.value !== 'refused' : result.error.code === 'DEADLOCK' || result.error.code === 'TIMEOUT') {
        throw new Error(`a refused import() should be caught (or fail the run), got ${summarize(result.ok ? result.value : result.error)}`)
      }
    },
  },
  {
    group: 'errors',
    name: 'a session lives on after a deadlocked run: its globals and next runs are intact',
    requires: { sessions: true },
    async run({ sandbox }) {
      const session = await sandbox.createSession()
      try {
        await sessionRunOk(session, 'globalThis.kept = 41')
        const stuck = await timedSessionRun(session, 'await new Promise(() => {})', { timeoutMs: LONG_DEADLINE_MS })
        expectCode(stuck.result, 'DEADLOCK', 'a session run awaiting forever')
        expectSameValue(await sessionRunOk(session, 'kept + 1'), 42, 'the next run of the session')
      } finally {
        await session.dispose()
      }
    },
  },
]
