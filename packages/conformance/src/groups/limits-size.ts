import { expectError, expectHealthy, expectLimitName, expectOk, timedRun } from '../harness/run.js'
import type { ConformanceCheck } from '../types.js'

export const sizeLimitChecks: ConformanceCheck[] = [
  {
    group: 'limits',
    name: 'deep recursion → RUNTIME_ERROR, sandbox healthy after',
    async run({ sandbox }) {
      const { result } = await timedRun(sandbox, 'function f(n) { return f(n + 1) + 1 }\nf(0)', { timeoutMs: 10_000 })
      expectError(result, 'RUNTIME_ERROR')
      await expectHealthy(sandbox, 'a stack overflow')
    },
  },
  {
    group: 'limits',
    name: 'deep recursion caught by the guest leaves the guest running',
    async run({ sandbox }) {
      const code = "function f(n) { return f(n + 1) + 1 }\ntry { f(0) } catch (e) { return 'recovered' }"
      const { result } = await timedRun(sandbox, code, { timeoutMs: 10_000 })
      if (expectOk(result) !== 'recovered') throw new Error('the guest should be able to catch its own stack overflow')
    },
  },
  {
    group: 'limits',
    name: 'OUTPUT_LIMIT: a 2 MB string over the default 1 MiB',
    async run({ sandbox }) {
      const { result } = await timedRun(sandbox, "'x'.repeat(2e6)")
      expectLimitName(expectError(result, 'OUTPUT_LIMIT'), 'maxOutputBytes', 1024 * 1024)
      await expectHealthy(sandbox, 'OUTPUT_LIMIT')
    },
  },
  {
    group: 'limits',
    name: 'OUTPUT_LIMIT: a huge sparse array ends quickly, not in a timeout',
    async run({ sandbox }) {
      const { result, elapsedMs } = await timedRun(sandbox, 'const a = []\na.length = 1e9\na', { timeoutMs: 10_000 })
      expectError(result, 'OUTPUT_LIMIT')
      if (elapsedMs > 2_000) throw new Error(`took ${Math.round(elapsedMs)} ms: the size check should not walk a billion holes`)
    },
  },
  {
    group: 'limits',
    name: 'OUTPUT_LIMIT: many small values adding up over maxOutputBytes',
    async run({ sandbox }) {
      const { result } = await timedRun(sandbox, 'Array.from({ length: 1000 }, (_, i) => ({ i }))', { maxOutputBytes: 1_000 })
      expectLimitName(expectError(result, 'OUTPUT_LIMIT'), 'maxOutputBytes', 1_000)
    },
  },
  {
    group: 'limits',
    name: 'maxOutputBytes: a value under the limit passes',
    async run({ sandbox }) {
      const { result } = await timedRun(sandbox, "'x'.repeat(100)", { maxOutputBytes: 1_000 })
      if (expectOk(result) !== 'x'.repeat(100)) throw new Error('a 100-character string should pass maxOutputBytes 1000')
    },
  },
  {
    group: 'limits',
    name: 'CODE_LIMIT: code over maxCodeBytes, counted in UTF-8 bytes',
    async run({ sandbox }) {
      let ran = false
      const tools = { 'probe.ran': { execute: () => (ran = true) } }
      // 62 characters, 122 bytes.
      const code = `await probe.ran(); "${'é'.repeat(60)}"`
      const { result } = await timedRun(sandbox, code, { maxCodeBytes: 100, tools })
      expectLimitName(expectError(result, 'CODE_LIMIT'), 'maxCodeBytes', 100)
      if (ran) throw new Error('code over maxCodeBytes ran')
      const ok = await timedRun(sandbox, `"${'é'.repeat(30)}"`, { maxCodeBytes: 100 })
      if (expectOk(ok.result) !== 'é'.repeat(30)) throw new Error('62 bytes of code should pass maxCodeBytes 100')
    },
  },
]
