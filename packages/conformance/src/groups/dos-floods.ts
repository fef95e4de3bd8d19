/**
 * Floods through the bridge (tool calls, tool arguments, logs) and activity after the
 * result: the limits hold, the host does no work the limits forbid, and nothing of a
 * finished run reaches the host.
 */
import { DEFAULT_LIMITS } from '@cordon/core'
import type { ToolContext, ToolSet } from '@cordon/core'
import {
  expectDeadline,
  expectError,
  expectHealthy,
  expectLimitName,
  expectOk,
  logMessages,
  sleep,
  summarize,
  timedRun,
} from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'
import { DOS_TIMEOUT_MS } from './dos-define.js'

const TRUNCATION_MARKER = '…[truncated]'
const { maxToolCalls, maxOutputBytes, maxLogBytes, maxLogEntries } = DEFAULT_LIMITS
/** The deadline of a run that builds hostile tool arguments before the call (see its check). */
const BUILD_TIMEOUT_MS = 15_000

/** A tool that counts calls and how many run at once; `ms` > 0 makes each call wait (until aborted). */
function tracked(ms = 0) {
  const state = { calls: 0, inFlight: 0, maxInFlight: 0 }
  const execute = async (_: unknown, ctx: ToolContext) => {
    state.calls++
    state.inFlight++
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight)
    try {
      if (ms > 0) await Promise.race([sleep(ms), new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))])
      return state.calls
    } finally {
      state.inFlight--
    }
  }
  const tools: ToolSet = { 't.count': { execute } }
  return { state, tools }
}

/** Counts stay where they were once the run is over: no call starts after it. */
async function expectNoLateCalls(state: { calls: number }, when: string): Promise<void> {
  const before = state.calls
  await sleep(150)
  if (state.calls !== before) throw new Error(`${state.calls - before} tool call(s) started after ${when}`)
}

export const floodDosChecks: ConformanceCheck[] = [
  {
    group: 'dos',
    name: 'dos: a tool-call flood without await → TOOL_CALL_LIMIT, at most maxToolCalls calls run',
    async run({ sandbox }) {
      const { state, tools } = tracked()
      const { result } = await timedRun(sandbox, 'for (;;) t.count()', { tools, timeoutMs: 5_000 })
      expectLimitName(expectError(result, 'TOOL_CALL_LIMIT'), 'maxToolCalls', maxToolCalls)
      if (state.calls > maxToolCalls) throw new Error(`the tool ran ${state.calls} times with the default maxToolCalls of ${maxToolCalls}`)
      await expectNoLateCalls(state, 'TOOL_CALL_LIMIT')
      await expectHealthy(sandbox, 'a tool-call flood')
    },
  },
  {
    group: 'dos',
    name: 'dos: 100,000 concurrent tool calls → TOOL_CALL_LIMIT, maxConcurrentToolCalls respected',
    async run({ sandbox }) {
      const { state, tools } = tracked(20)
      const code = 'await Promise.all(Array.from({ length: 100000 }, () => t.count()))'
      const { result } = await timedRun(sandbox, code, { tools, timeoutMs: 5_000, maxConcurrentToolCalls: 8 })
      expectError(result, 'TOOL_CALL_LIMIT')
      if (state.calls > maxToolCalls) throw new Error(`the tool ran ${state.calls} times with the default maxToolCalls of ${maxToolCalls}`)
      if (state.maxInFlight > 8) throw new Error(`${state.maxInFlight} calls ran at once with maxConcurrentToolCalls 8`)
      await expectNoLateCalls(state, 'TOOL_CALL_LIMIT')
      await expectHealthy(sandbox, 'a concurrent tool-call flood')
    },
  },
  {
    group: 'dos',
    name: 'dos: sequential tool calls until the deadline → TIMEOUT, no call after it',
    async run({ sandbox, options }) {
      const { state, tools } = tracked()
      const timed = await timedRun(sandbox, 'for (;;) await t.count()', { tools, timeoutMs: DOS_TIMEOUT_MS, maxToolCalls: 1_000_000 })
      expectDeadline(timed, 'TIMEOUT', DOS_TIMEOUT_MS, options.timeoutSlackMs)
      await expectNoLateCalls(state, 'TIMEOUT')
      await expectHealthy(sandbox, 'a sequential tool-call flood')
    },
  },
  {
    group: 'dos',
    name: 'dos: calls queued behind maxConcurrentToolCalls are dropped when the run times out',
    async run({ sandbox, options }) {
      const { state, tools } = tracked(10_000)
      const code = 'for (let i = 0; i < 5000; i++) t.count()\nawait new Promise(() => {})'
      const timed = await timedRun(sandbox, code, { tools, timeoutMs: DOS_TIMEOUT_MS, maxToolCalls: 1_000_000, maxConcurrentToolCalls: 4 })
      expectDeadline(timed, 'TIMEOUT', DOS_TIMEOUT_MS, options.timeoutSlackMs)
      if (state.calls > 4) throw new Error(`${state.calls} calls started with maxConcurrentToolCalls 4 and none finishing`)
      await expectNoLateCalls(state, 'TIMEOUT')
      await expectHealthy(sandbox, 'queued tool calls')
    },
  },
  {
    group: 'dos',
    name: 'dos: deep, sparse and wide tool arguments are refused promptly; the tool never runs',
    // An interpreter (QuickJS) takes seconds to build the arguments on a loaded machine; the
    // refusal itself is quick, and a deadline still bounds it.
    timeoutMs: 60_000,
    async run({ sandbox }) {
      const { state, tools } = tracked()
      const deep =
        "let a = []\nfor (let i = 0; i < 100000; i++) a = [a]\ntry { await t.count(a) } catch (e) { return 'refused' }\nreturn 'sent'"
      expectSameValue(
        expectOk((await timedRun(sandbox, deep, { tools, timeoutMs: BUILD_TIMEOUT_MS }, BUILD_TIMEOUT_MS * 2)).result),
        'refused',
        'deeply nested arguments',
      )
      for (const code of [
        'const a = []\na.length = 1e9\nawait t.count(a)',
        'const o = {}\nfor (let i = 0; i < 200000; i++) o["key" + i] = i\nawait t.count(o)',
      ]) {
        const { result } = await timedRun(sandbox, code, { tools, timeoutMs: BUILD_TIMEOUT_MS }, BUILD_TIMEOUT_MS * 2)
        expectLimitName(expectError(result, 'OUTPUT_LIMIT'), 'maxOutputBytes', maxOutputBytes)
      }
      if (state.calls > 0) throw new Error(`the tool ran ${state.calls} time(s) with arguments it should never have received`)
      await expectHealthy(sandbox, 'refused tool arguments')
    },
  },
  {
    group: 'dos',
    name: 'dos: huge log entries are cut to maxLogBytes and a million-entry flood is counted, not kept',
    timeoutMs: 30_000,
    async run({ sandbox }) {
      const huge = await timedRun(
        sandbox,
        "const s = 'x'.repeat(1e7)\nfor (let i = 0; i < 5; i++) console.log(s)\nconsole.log(...new Array(50000).fill('y'))\nreturn 1",
        { timeoutMs: 15_000 },
      )
      expectOk(huge.result)
      const limit = maxLogBytes + new TextEncoder().encode(TRUNCATION_MARKER).length
      const messages = logMessages(huge.result)
      if (messages.length !== 6 || messages.some((m) => new TextEncoder().encode(m).length > limit || !m.endsWith(TRUNCATION_MARKER))) {
        throw new Error(`expected 6 entries cut to maxLogBytes ${maxLogBytes}, got ${summarize(messages.map((m) => m.length))}`)
      }
      const flood = await timedRun(sandbox, 'for (let i = 0; i < 1e6; i++) console.log(i)\nreturn 1', { timeoutMs: 15_000 })
      expectOk(flood.result)
      if (flood.result.logs.length !== maxLogEntries || flood.result.stats.logsDropped !== 1e6 - maxLogEntries) {
        throw new Error(
          `expected ${maxLogEntries} entries kept and ${1e6 - maxLogEntries} dropped, got ${flood.result.logs.length} and ${flood.result.stats.logsDropped}`,
        )
      }
      await expectHealthy(sandbox, 'a log flood')
    },
  },
  {
    group: 'dos',
    name: 'dos: logs, timers and tool calls after the result is delivered are dropped',
    async run({ sandbox }) {
      const { state, tools } = tracked()
      const code = [
        "console.log('before')",
        "setTimeout(() => { console.log('late timer'); t.count() }, 0)",
        'setInterval(() => t.count(), 1)',
        "void (async () => { for (let i = 0; i < 50; i++) await null; console.log('late microtask'); await t.count() })()",
        "return 'done'",
      ].join('\n')
      const { result } = await timedRun(sandbox, code, { tools, timeoutMs: 5_000 })
      expectSameValue(expectOk(result), 'done', 'the result')
      expectSameValue(logMessages(result), ['before'], 'the logs')
      await expectNoLateCalls(state, 'the result')
      if (state.calls > 0) throw new Error(`${state.calls} tool call(s) ran after the result was delivered`)
      const next = await timedRun(sandbox, "console.log('next'); return 1")
      expectSameValue(logMessages(next.result), ['next'], 'the logs of the next run')
    },
  },
]
