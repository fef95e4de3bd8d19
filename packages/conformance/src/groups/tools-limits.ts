import { expectError, expectHealthy, expectLimitName, logMessages, timedRun } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'

function counter() {
  const state = { calls: 0 }
  return { state, tools: { 't.count': { execute: () => ++state.calls } } }
}

export const toolLimitChecks: ConformanceCheck[] = [
  {
    group: 'tools',
    name: 'the (maxToolCalls + 1)-th call ends the run with TOOL_CALL_LIMIT, even inside try/catch',
    async run({ sandbox }) {
      const { state, tools } = counter()
      const code = [
        'for (let i = 0; i < 10; i++) {',
        '  try { await t.count(); console.log("call " + i) } catch (e) { console.log("caught " + e) }',
        '}',
        "return 'finished'",
      ].join('\n')
      const { result } = await timedRun(sandbox, code, { tools, maxToolCalls: 3 })
      expectLimitName(expectError(result, 'TOOL_CALL_LIMIT'), 'maxToolCalls', 3)
      if (state.calls > 3) throw new Error(`the tool ran ${state.calls} times with maxToolCalls 3`)
      expectSameValue(logMessages(result), ['call 0', 'call 1', 'call 2'], 'the logs (nothing after the limit)')
      await expectHealthy(sandbox, 'TOOL_CALL_LIMIT')
    },
  },
  {
    group: 'tools',
    name: 'maxToolCalls: 0 ends the run at the first call',
    async run({ sandbox }) {
      const { state, tools } = counter()
      const { result } = await timedRun(sandbox, 'try { await t.count() } catch {} return "finished"', { tools, maxToolCalls: 0 })
      expectError(result, 'TOOL_CALL_LIMIT')
      if (state.calls !== 0) throw new Error('the tool ran with maxToolCalls 0')
    },
  },
  {
    group: 'tools',
    name: 'concurrent calls over maxToolCalls end the run with TOOL_CALL_LIMIT',
    async run({ sandbox }) {
      const { state, tools } = counter()
      const code = 'try { await Promise.all(Array.from({ length: 8 }, () => t.count())) } catch {} return "finished"'
      const { result } = await timedRun(sandbox, code, { tools, maxToolCalls: 5 })
      expectError(result, 'TOOL_CALL_LIMIT')
      if (state.calls > 5) throw new Error(`the tool ran ${state.calls} times with maxToolCalls 5`)
    },
  },
  {
    group: 'tools',
    name: 'tool arguments over maxOutputBytes end the run with OUTPUT_LIMIT; the tool does not run',
    async run({ sandbox }) {
      const { state, tools } = counter()
      const code = "try { await t.count('x'.repeat(5000)) } catch {} return 'finished'"
      const { result } = await timedRun(sandbox, code, { tools, maxOutputBytes: 1000 })
      expectLimitName(expectError(result, 'OUTPUT_LIMIT'), 'maxOutputBytes', 1000)
      if (state.calls !== 0) throw new Error('the tool ran with oversized arguments')
      await expectHealthy(sandbox, 'OUTPUT_LIMIT on tool arguments')
    },
  },
]
