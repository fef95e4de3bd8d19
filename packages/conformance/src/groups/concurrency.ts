import type { RunResult, ToolSet } from '@cordon/core'
import { expectDeadline, expectError, expectOk, logMessages, timedRun } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'

const RUNS = 20

/** Run i logs, waits (i % 5) * 15 ms, calls its own tool and returns what it saw. */
const PROGRAM = [
  "console.log('start', id)",
  'await new Promise((resolve) => setTimeout(resolve, (id % 5) * 15))',
  'const fromTool = await t.whoami()',
  "console.log('end', id, fromTool)",
  'return { id, fromTool, doubled: id * 2 }',
].join('\n')

function toolsFor(id: number): ToolSet {
  return { 't.whoami': { execute: async () => (await new Promise((r) => setTimeout(r, (id % 3) * 10)), `tool-${id}`) } }
}

function expectOwnResult(result: RunResult, id: number): void {
  const value = expectOk(result)
  expectSameValue(value, { id, fromTool: `tool-${id}`, doubled: id * 2 }, `the value of run ${id}`)
  expectSameValue(logMessages(result), [`start ${id}`, `end ${id} tool-${id}`], `the logs of run ${id}`)
}

export const concurrencyChecks: readonly ConformanceCheck[] = [
  {
    group: 'concurrency',
    name: `${RUNS} runs at once each get their own globals, tools, value and logs`,
    async run({ sandbox }) {
      const ids = Array.from({ length: RUNS }, (_, id) => id)
      const results = await Promise.all(ids.map((id) => timedRun(sandbox, PROGRAM, { globals: { id }, tools: toolsFor(id) })))
      results.forEach(({ result }, id) => expectOwnResult(result, id))
    },
  },
  {
    group: 'concurrency',
    name: 'a run timing out (busy loop) does not disturb the runs beside it',
    async run({ sandbox, options }) {
      const ids = Array.from({ length: 10 }, (_, id) => id)
      const stuck = timedRun(sandbox, "console.log('stuck')\nwhile (true) {}", { timeoutMs: 300 })
      const others = ids.map((id) => timedRun(sandbox, PROGRAM, { globals: { id }, tools: toolsFor(id) }))
      const [stuckResult, ...results] = await Promise.all([stuck, ...others])
      expectDeadline(stuckResult, 'TIMEOUT', 300, options.timeoutSlackMs)
      results.forEach(({ result }, id) => expectOwnResult(result, id))
    },
  },
  {
    group: 'concurrency',
    name: 'a run timing out while waiting does not disturb the runs beside it',
    async run({ sandbox, options }) {
      const ids = Array.from({ length: 10 }, (_, id) => id)
      const stuck = timedRun(sandbox, 'await new Promise((resolve) => setTimeout(resolve, 60000))', { timeoutMs: 200 })
      const others = ids.map((id) => timedRun(sandbox, PROGRAM, { globals: { id }, tools: toolsFor(id) }))
      const [stuckResult, ...results] = await Promise.all([stuck, ...others])
      expectDeadline(stuckResult, 'TIMEOUT', 200, options.timeoutSlackMs)
      results.forEach(({ result }, id) => expectOwnResult(result, id))
    },
  },
  {
    group: 'concurrency',
    name: 'aborting one run does not disturb the runs beside it',
    async run({ sandbox }) {
      const controller = new AbortController()
      const aborted = timedRun(sandbox, 'await new Promise((resolve) => setTimeout(resolve, 60000))', { signal: controller.signal })
      const others = [0, 1, 2, 3, 4].map((id) => timedRun(sandbox, PROGRAM, { globals: { id }, tools: toolsFor(id) }))
      setTimeout(() => controller.abort(), 20)
      const [abortedResult, ...results] = await Promise.all([aborted, ...others])
      expectError(abortedResult.result, 'ABORTED')
      results.forEach(({ result }, id) => expectOwnResult(result, id))
    },
  },
  {
    group: 'concurrency',
    name: 'runs failing in different ways at once each report their own error',
    async run({ sandbox }) {
      const [thrown, output, syntax, ok] = await Promise.all([
        timedRun(sandbox, "await null; throw new RangeError('mine')"),
        timedRun(sandbox, "await null; 'x'.repeat(500)", { maxOutputBytes: 100 }),
        timedRun(sandbox, 'const = 1'),
        timedRun(sandbox, 'await null; 42'),
      ])
      if (expectError(thrown.result, 'RUNTIME_ERROR').message !== 'mine') throw new Error('the thrown run lost its message')
      expectError(output.result, 'OUTPUT_LIMIT')
      expectError(syntax.result, 'SYNTAX_ERROR')
      if (expectOk(ok.result) !== 42) throw new Error('the ok run lost its value')
    },
  },
]
