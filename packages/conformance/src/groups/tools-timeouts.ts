/**
 * Per-tool timeouts (`timeoutMs` on a tool definition): a call that outlives it rejects in the
 * guest with a catchable error naming the tool, and the tool's signal aborts; the run's own
 * deadline still wins; a bad value or a sync tool with a timeout is the host's mistake.
 */
import type { ToolSet } from '@cordon/core'
import { expectError, expectHealthy, expectHostError, runOk, timedRun, triedUntilStarted } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'

/** A tool that answers only when its signal aborts, and records that it did. */
function stuckTool(timeoutMs: number): { tools: ToolSet; state: { called: boolean; aborted: boolean; reason: unknown } } {
  const state = { called: false, aborted: false, reason: undefined as unknown }
  const tools: ToolSet = {
    'slow.wait': {
      timeoutMs,
      execute: (_args: unknown, { signal }) =>
        new Promise<never>(() => {
          state.called = true
          signal.addEventListener('abort', () => {
            state.aborted = true
            state.reason = signal.reason
          })
        }),
    },
  }
  return { tools, state }
}

export const toolTimeoutChecks: ConformanceCheck[] = [
  {
    group: 'tools',
    name: "a tool's timeoutMs: the call rejects in the guest with a catchable TimeoutError naming the tool, and the tool's signal aborts",
    async run({ sandbox }) {
      const { tools, state } = stuckTool(100)
      const code = "try { await slow.wait() } catch (e) { return [e instanceof Error, e.name, e.message] }\nreturn 'not reached'"
      const value = await runOk(sandbox, code, { tools, timeoutMs: 5_000 })
      expectSameValue(value, [true, 'TimeoutError', 'tool slow.wait timed out after 100 ms'], 'what the guest caught')
      if (!state.aborted) throw new Error("the tool's signal did not abort when its timeoutMs passed")
      await expectHealthy(sandbox, 'a tool timeout')
    },
  },
  {
    group: 'tools',
    name: "a tool's timeoutMs: calls that finish in time are untouched, and the guest goes on after a timed-out one",
    async run({ sandbox }) {
      const { tools } = stuckTool(50)
      tools['fast.echo'] = { timeoutMs: 5_000, execute: (args: unknown) => args }
      const code = [
        'const first = await fast.echo({ n: 1 })',
        'let caught = ""',
        'try { await slow.wait() } catch (e) { caught = e.message }',
        'const second = await fast.echo([2])',
        'return { first, caught, second }',
      ].join('\n')
      const value = await runOk(sandbox, code, { tools, timeoutMs: 5_000 })
      expectSameValue(value, { first: { n: 1 }, caught: 'tool slow.wait timed out after 50 ms', second: [2] }, 'the result')
    },
  },
  {
    group: 'tools',
    name: "the run's deadline wins over a longer tool timeoutMs: TIMEOUT, and the tool's signal aborts",
    async run({ sandbox }) {
      let stuck = stuckTool(60_000)
      // A run that timed out before it called the tool (a slow start) says nothing here: tried again.
      const { result } = await triedUntilStarted(
        () => {
          stuck = stuckTool(60_000)
          return timedRun(sandbox, 'await slow.wait()', { tools: stuck.tools, timeoutMs: 300 })
        },
        () => stuck.state.called,
      )
      const { state } = stuck
      expectError(result, 'TIMEOUT')
      if (!state.called) throw new Error('the tool was never called')
      if (!state.aborted) throw new Error("the tool's signal did not abort at the run's deadline")
    },
  },
  {
    group: 'tools',
    name: 'a bad tool timeoutMs, or one on a sync tool, is INVALID_OPTIONS',
    async run({ sandbox }) {
      const bad: unknown[] = [0, -1, 1.5, Number.NaN, '100', 2 ** 31]
      for (const timeoutMs of bad) {
        const tools = { 't.x': { timeoutMs, execute: () => 1 } } as unknown as ToolSet
        await expectHostError(() => sandbox.run('1', { tools }), 'INVALID_OPTIONS', `timeoutMs ${String(timeoutMs)}`)
      }
      const syncTools: ToolSet = { 't.y': { sync: true, timeoutMs: 100, execute: () => 1 } }
      await expectHostError(() => sandbox.run('1', { tools: syncTools }), 'INVALID_OPTIONS', 'timeoutMs on a sync tool')
    },
  },
]
