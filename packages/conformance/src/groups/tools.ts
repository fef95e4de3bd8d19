import type { ToolContext, ToolSet } from '@cordon/core'
import { hostTraces } from '../harness/host-paths.js'
import {
  expectDeadline,
  expectError,
  expectHealthy,
  expectLimitName,
  expectOk,
  runOk,
  sleep,
  summarize,
  timedRun,
  timedRunThatStarts,
} from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'
import { toolErrorChecks } from './tools-errors.js'
import { toolLimitChecks } from './tools-limits.js'
import { toolTimeoutChecks } from './tools-timeouts.js'

function tool(name: string, code: string, tools: ToolSet, expected: unknown): ConformanceCheck {
  return {
    group: 'tools',
    name,
    async run({ sandbox }) {
      expectSameValue(await runOk(sandbox, code, { tools }), expected, 'the value')
    },
  }
}

/** A tool that sleeps, tracking how many calls are in flight at once. */
function sleeper(ms: number) {
  const state = { inFlight: 0, maxInFlight: 0, calls: 0 }
  const execute = async (n: unknown) => {
    state.calls++
    state.inFlight++
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight)
    await sleep(ms)
    state.inFlight--
    return n
  }
  return { state, execute }
}

/**
 * A tool whose calls wait until `count` of them are in flight (then all answer), or `capMs` after
 * each began: concurrent calls all meet however slowly they arrive on a loaded machine, while
 * calls made one after another never do (each answers after `capMs` alone).
 */
function meeting(count: number, capMs: number) {
  const state = { inFlight: 0, maxInFlight: 0 }
  const waiting: (() => void)[] = []
  const execute = async (n: unknown) => {
    state.inFlight++
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight)
    await new Promise<void>((resolve) => {
      // Released with the others, its cap timer goes too: nothing is left pending after the check.
      const timer = setTimeout(resolve, capMs)
      waiting.push(() => {
        clearTimeout(timer)
        resolve()
      })
      if (state.inFlight >= count) for (const release of waiting.splice(0)) release()
    })
    state.inFlight--
    return n
  }
  return { state, execute }
}

const coreChecks: ConformanceCheck[] = [
  tool(
    'math.add({a: 1, b: 2}) → 3',
    'await math.add({ a: 1, b: 2 })',
    { 'math.add': { execute: ({ a, b }: { a: number; b: number }) => a + b } },
    3,
  ),
  tool(
    'deep namespaces share their parents',
    'const a1 = await a.b.c(1); const a2 = await a.b.d(2); const a3 = await a.x(3); [a1, a2, a3]',
    {
      'a.b.c': { execute: (n: number) => `c${n}` },
      'a.b.d': { execute: (n: number) => `d${n}` },
      'a.x': { execute: (n: number) => `x${n}` },
    },
    ['c1', 'd2', 'x3'],
  ),
  tool('a top-level tool name', 'typeof (await now())', { now: { execute: () => Date.now() } }, 'number'),
  tool(
    'a tool called without arguments receives undefined',
    'await t.args()',
    { 't.args': { execute: (args: unknown) => args === undefined } },
    true,
  ),
  tool('an async tool', 'await t.later(5)', { 't.later': { execute: async (n: number) => (await sleep(20), n * 2) } }, 10),
  tool(
    '50 sequential calls',
    'let sum = 0\nfor (let i = 0; i < 50; i++) sum += await t.id(i)\nsum',
    { 't.id': { execute: (n: number) => n } },
    1225,
  ),
  {
    group: 'tools',
    name: 'ctx.name is the dotted tool name and ctx.signal an AbortSignal',
    async run({ sandbox }) {
      const seen: string[] = []
      const execute = (_: unknown, ctx: ToolContext) => {
        seen.push(`${ctx.name}:${ctx.signal instanceof AbortSignal}:${ctx.signal.aborted}`)
        return null
      }
      await runOk(sandbox, 'await gh.issues.list(); await top()', { tools: { 'gh.issues.list': { execute }, top: { execute } } })
      expectSameValue(seen, ['gh.issues.list:true:false', 'top:true:false'], 'ctx seen by the tools')
    },
  },
  {
    group: 'tools',
    name: 'Promise.all of 10 calls runs them concurrently',
    async run({ sandbox }) {
      // Each call waits for the other nine (at most 3 s): one at a time, ten calls would take 30 s.
      const { state, execute } = meeting(10, 3_000)
      const code = 'await Promise.all(Array.from({ length: 10 }, (_, i) => t.slow(i)))'
      const { result } = await timedRun(sandbox, code, { tools: { 't.slow': { execute } }, timeoutMs: 20_000 }, 25_000)
      expectSameValue(expectOk(result), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'the results')
      if (state.maxInFlight !== 10) throw new Error(`expected 10 calls in flight at once, saw at most ${state.maxInFlight}`)
    },
  },
  {
    group: 'tools',
    name: 'maxConcurrentToolCalls caps the calls in flight; the others wait their turn',
    async run({ sandbox }) {
      const { state, execute } = sleeper(30)
      const code = 'await Promise.all([1, 2, 3, 4, 5, 6].map((i) => t.slow(i)))'
      const value = await runOk(sandbox, code, { tools: { 't.slow': { execute } }, maxConcurrentToolCalls: 2 })
      expectSameValue(value, [1, 2, 3, 4, 5, 6], 'the results')
      if (state.maxInFlight > 2) throw new Error(`saw ${state.maxInFlight} calls in flight with maxConcurrentToolCalls 2`)
    },
  },
  {
    group: 'tools',
    name: "a tool's error reaches the guest as a catchable Error with its message and no host stack",
    async run({ sandbox }) {
      let hostStack = ''
      const execute = () => {
        const error = new Error('tool failed: quota')
        hostStack = error.stack ?? ''
        throw error
      }
      const code =
        "try { await t.fail(); return 'no error' } catch (e) { return { isError: e instanceof Error, message: e.message, stack: String(e.stack) } }"
      const value = (await runOk(sandbox, code, { tools: { 't.fail': { execute } } })) as Record<string, unknown>
      if (value.isError !== true || value.message !== 'tool failed: quota') throw new Error(`the guest caught ${summarize(value)}`)
      const traces = hostTraces(String(value.stack), [hostStack])
      if (traces.length > 0) throw new Error(`the guest-side stack shows host paths ${summarize(traces)}: ${String(value.stack)}`)
    },
  },
  {
    group: 'tools',
    name: 'a rejecting async tool behaves like a throwing one',
    async run({ sandbox }) {
      const execute = async () => {
        await sleep(5)
        throw new RangeError('async nope')
      }
      const code = 'try { await t.fail() } catch (e) { return [e instanceof Error, e.message] }'
      expectSameValue(await runOk(sandbox, code, { tools: { 't.fail': { execute } } }), [true, 'async nope'], '[instanceof Error, message]')
    },
  },
  {
    group: 'tools',
    name: 'an uncaught tool error ends the run as RUNTIME_ERROR with its message',
    async run({ sandbox }) {
      const { result } = await timedRun(sandbox, 'await t.fail()', {
        tools: { 't.fail': { execute: () => Promise.reject(new Error('boom')) } },
      })
      const error = expectError(result, 'RUNTIME_ERROR')
      if (error.message !== 'boom') throw new Error(`message should be 'boom', got ${JSON.stringify(error.message)}`)
    },
  },
  {
    group: 'tools',
    name: 'inputSchema rejects bad input with a catchable TypeError; execute is not called',
    async run({ sandbox }) {
      let calls = 0
      const tools: ToolSet = {
        'calc.square': {
          inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false },
          execute: ({ n }: { n: number }) => (calls++, n * n),
        },
      }
      const code = [
        'const out = []',
        "for (const bad of [{ n: 'x' }, {}, 5, { n: 1, extra: true }]) {",
        '  try { await calc.square(bad); out.push("accepted") } catch (e) { out.push(e instanceof TypeError ? e.message : "not a TypeError: " + e) }',
        '}',
        'out.push(await calc.square({ n: 3 }))',
        'out',
      ].join('\n')
      const value = (await runOk(sandbox, code, { tools })) as unknown[]
      for (const message of value.slice(0, 4)) {
        if (typeof message !== 'string' || !message.startsWith('Invalid arguments for tool calc.square')) {
          throw new Error(`expected a TypeError starting "Invalid arguments for tool calc.square", got ${summarize(message)}`)
        }
      }
      if (value[4] !== 9) throw new Error(`valid input should work, got ${summarize(value[4])}`)
      if (calls !== 1) throw new Error(`execute ran ${calls} times; only the valid call may run it`)
    },
  },
  {
    group: 'tools',
    name: 'stats.toolCalls counts the calls',
    async run({ sandbox }) {
      const tools: ToolSet = { 't.id': { execute: (n: number) => n } }
      const { result } = await timedRun(sandbox, 'for (let i = 0; i < 5; i++) await t.id(i)\nawait Promise.all([t.id(1), t.id(2)])', {
        tools,
      })
      expectOk(result)
      if (result.stats.toolCalls !== 7) throw new Error(`stats.toolCalls should be 7, got ${result.stats.toolCalls}`)
      const none = await timedRun(sandbox, '1', { tools })
      if (none.result.stats.toolCalls !== 0)
        throw new Error(`stats.toolCalls should be 0 without calls, got ${none.result.stats.toolCalls}`)
    },
  },
  {
    group: 'tools',
    name: "on timeout a pending tool's ctx.signal is aborted",
    async run({ sandbox, options }) {
      let called = false
      let sawAbort = false
      const execute = (_: unknown, ctx: ToolContext) =>
        new Promise((resolve) => {
          called = true
          ctx.signal.addEventListener('abort', () => {
            sawAbort = true
            resolve('aborted')
          })
        })
      const timed = await timedRunThatStarts(sandbox, 'await t.wait()', { tools: { 't.wait': { execute } }, timeoutMs: 200 }, () => called)
      expectDeadline(timed, 'TIMEOUT', 200, options.timeoutSlackMs)
      for (let i = 0; i < 20 && !sawAbort; i++) await sleep(10)
      if (!sawAbort) throw new Error("the pending tool's ctx.signal was not aborted")
    },
  },
  {
    group: 'tools',
    name: 'a tool result arriving after the run ended is ignored',
    async run({ sandbox, options }) {
      let called = false
      let finished = false
      const execute = async () => {
        called = true
        await sleep(300)
        finished = true
        return 'late'
      }
      const timed = await timedRunThatStarts(sandbox, 'await t.slow()', { tools: { 't.slow': { execute } }, timeoutMs: 100 }, () => called)
      const error = expectDeadline(timed, 'TIMEOUT', 100, options.timeoutSlackMs)
      expectLimitName(error, 'timeoutMs', 100)
      if (!called) throw new Error('the guest never called the tool before its 100 ms deadline, in three runs')
      while (!finished) await sleep(20)
      await sleep(20)
      await expectHealthy(sandbox, 'a late tool result')
    },
  },
]

export const toolsChecks: readonly ConformanceCheck[] = [...coreChecks, ...toolErrorChecks, ...toolLimitChecks, ...toolTimeoutChecks]
