import type { ToolContext } from '@cordon/core'
import {
  expectDeadline,
  expectError,
  expectHealthy,
  expectLimitName,
  expectNotLate,
  loggedAnything,
  logMessages,
  sleep,
  timedRun,
  timedRunThatStarts,
} from '../harness/run.js'
import { measureContention } from '../harness/cpu-contention.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'

const TIMEOUT_MS = 300
/** How long after the guest's tool call the mid-run abort comes. */
const ABORT_AFTER_TOOL_MS = 50

/** TIMEOUT within timeoutMs + slack from the `run()` call, logs before it kept, sandbox healthy after. */
function timeout(name: string, body: string, toolNeverResolves = false): ConformanceCheck {
  return {
    group: 'limits',
    name: `TIMEOUT: ${name}`,
    async run({ sandbox, options }) {
      const tools = toolNeverResolves ? { 't.never': { execute: () => new Promise<never>(() => {}) } } : undefined
      const code = `console.log('before')\n${body}`
      const budgetMs = TIMEOUT_MS + options.timeoutSlackMs + 2_000
      const timed = await timedRunThatStarts(sandbox, code, { timeoutMs: TIMEOUT_MS, tools }, loggedAnything, budgetMs)
      expectLimitName(expectDeadline(timed, 'TIMEOUT', TIMEOUT_MS, options.timeoutSlackMs), 'timeoutMs', TIMEOUT_MS)
      expectSameValue(logMessages(timed.result), ['before'], 'the logs before the timeout')
      await expectHealthy(sandbox, 'a TIMEOUT')
    },
  }
}

export const timeLimitChecks: ConformanceCheck[] = [
  timeout('while (true) {}', 'while (true) {}'),
  timeout('while (true) await null', 'while (true) await null'),
  timeout('a microtask flood', 'const f = () => Promise.resolve().then(f)\nf()\nawait new Promise(() => {})'),
  timeout('a tool that never resolves', 'await t.never()', true),
  timeout('a setTimeout longer than the deadline', "await new Promise((resolve) => setTimeout(resolve, 60000))\nreturn 'woke up'"),
  timeout('a setInterval that keeps the run busy', 'let n = 0\nsetInterval(() => n++, 1)\nawait new Promise(() => {})'),
  timeout('a busy loop in a timer callback', 'setTimeout(() => { for (;;) {} }, 10)\nawait new Promise(() => {})'),
  {
    group: 'limits',
    name: 'ABORTED: aborting the signal mid-run ends the run promptly, logs kept',
    async run({ sandbox, options }) {
      let toolSawAbort = false
      let abortedAt: number | undefined
      const controller = new AbortController()
      // Aborted once the guest is provably mid-run (it logged, then called the tool), so a run
      // that waits for its engine on a loaded machine does not turn the check into a race.
      const tools = {
        't.wait': {
          execute: (_: unknown, ctx: ToolContext) => {
            setTimeout(() => {
              abortedAt = performance.now()
              controller.abort()
            }, ABORT_AFTER_TOOL_MS)
            return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve((toolSawAbort = true))))
          },
        },
      }
      const code = "console.log('before')\nawait Promise.all([t.wait(), new Promise((resolve) => setTimeout(resolve, 60000))])"
      const contended = measureContention()
      const { result } = await timedRun(sandbox, code, { tools, signal: controller.signal, timeoutMs: 30_000 })
      const endedAt = performance.now()
      if (abortedAt === undefined) throw new Error(`the guest never reached its tool call: ${JSON.stringify(result)}`)
      expectError(result, 'ABORTED')
      // Promptly: from the abort to the result, what a deadline may be late by.
      const fromAbort = { result, elapsedMs: endedAt - abortedAt, contendedMs: contended() }
      expectNotLate(fromAbort, 0, options.timeoutSlackMs, 'ABORTED', 'the abort')
      expectSameValue(logMessages(result), ['before'], 'the logs before the abort')
      for (let i = 0; i < 20 && !toolSawAbort; i++) await sleep(10)
      if (!toolSawAbort) throw new Error("the pending tool's ctx.signal was not aborted")
      await expectHealthy(sandbox, 'ABORTED')
    },
  },
  {
    group: 'limits',
    name: 'ABORTED: an already-aborted signal runs nothing',
    async run({ sandbox }) {
      let ran = false
      const tools = { 'probe.ran': { execute: () => (ran = true) } }
      const { result, elapsedMs } = await timedRun(sandbox, 'await probe.ran()\n1', { tools, signal: AbortSignal.abort() })
      expectError(result, 'ABORTED')
      if (ran) throw new Error('guest code ran although the signal was already aborted')
      if (elapsedMs > 1000) throw new Error(`took ${Math.round(elapsedMs)} ms to report an already-aborted signal`)
    },
  },
  {
    group: 'limits',
    name: 'sandbox defaults apply and run options override them',
    async run({ newSandbox, options }) {
      const sandbox = await newSandbox({ timeoutMs: 200, maxLogEntries: 2, maxOutputBytes: 100 })
      // A first run starts the backend (a QuickJS worker: 110-170 ms on 2 idle cores), which
      // would leave the guest too little of a 200 ms deadline on a loaded machine.
      await sandbox.run('1', { timeoutMs: 30_000 })
      const sleepCode =
        "console.log(1); console.log(2); console.log(3)\nawait new Promise((resolve) => setTimeout(resolve, 600))\n'x'.repeat(50)"
      // A run whose guest had not logged by the 200 ms deadline never started (a cold worker or
      // child on a loaded machine): it says nothing of the defaults, and is tried again.
      const limited = await timedRunThatStarts(sandbox, sleepCode, {}, loggedAnything)
      expectLimitName(expectDeadline(limited, 'TIMEOUT', 200, options.timeoutSlackMs), 'timeoutMs', 200)
      if (limited.result.logs.length !== 2) throw new Error(`default maxLogEntries 2 kept ${limited.result.logs.length} entries`)

      const { result } = await timedRun(sandbox, sleepCode, { timeoutMs: 5_000, maxLogEntries: 5 })
      if (!result.ok || result.value !== 'x'.repeat(50))
        throw new Error('timeoutMs and maxLogEntries given to run() should win over the defaults')
      if (result.logs.length !== 3) throw new Error(`maxLogEntries 5 from run() kept ${result.logs.length} of 3 entries`)

      // The output default and its override; a long deadline, so a loaded machine cannot turn them into the 200 ms TIMEOUT.
      const big = await timedRun(sandbox, "'x'.repeat(500)", { timeoutMs: 30_000 })
      expectError(big.result, 'OUTPUT_LIMIT')
      const allowed = await timedRun(sandbox, "'x'.repeat(500)", { timeoutMs: 30_000, maxOutputBytes: 10_000 })
      if (!allowed.result.ok) throw new Error('maxOutputBytes given to run() should win over the default')
    },
  },
]
