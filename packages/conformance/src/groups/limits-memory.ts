import { expectError, expectHealthy, expectLimitName, logMessages, summarize, timedRun } from '../harness/run.js'
import type { ConformanceCheck } from '../types.js'
import { oomPathChecks } from './limits-memory-ivm-oom.js'

const MEMORY_MB = 32
/** Generous: MEMORY_LIMIT must come from the memory cap, not from the clock. */
const MEMORY_TIMEOUT_MS = 15_000

function memory(name: string, body: string): ConformanceCheck {
  return {
    group: 'limits',
    name: `MEMORY_LIMIT: ${name}`,
    requires: { memoryLimit: true },
    timeoutMs: 30_000,
    async run({ sandbox }) {
      const code = `console.log('before')\n${body}`
      const { result } = await timedRun(sandbox, code, { memoryMb: MEMORY_MB, timeoutMs: MEMORY_TIMEOUT_MS }, MEMORY_TIMEOUT_MS + 5_000)
      expectLimitName(expectError(result, 'MEMORY_LIMIT'), 'memoryMb', MEMORY_MB)
      if (logMessages(result)[0] !== 'before') throw new Error(`the logs before the limit should be kept, got ${summarize(result.logs)}`)
      await expectHealthy(sandbox, 'MEMORY_LIMIT')
    },
  }
}

export const memoryLimitChecks: ConformanceCheck[] = [
  memory('heap growth', 'const a = []\nfor (;;) a.push(new Array(1e5).fill(a.length))'),
  {
    group: 'limits',
    name: 'MEMORY_LIMIT: every entry written in the turn that ran out of memory is kept',
    requires: { memoryLimit: true },
    timeoutMs: 30_000,
    async run({ sandbox }) {
      // Entries travel in batches per turn of the guest: the turn the memory cap ended must still deliver its own.
      const code = "for (let i = 0; i < 40; i++) console.log('line', i)\nconst a = []\nfor (;;) a.push(new Array(1e5).fill(a.length))"
      const { result } = await timedRun(sandbox, code, { memoryMb: MEMORY_MB, timeoutMs: MEMORY_TIMEOUT_MS }, MEMORY_TIMEOUT_MS + 5_000)
      expectError(result, 'MEMORY_LIMIT')
      const messages = logMessages(result)
      if (messages.length !== 40 || messages[39] !== 'line 39')
        throw new Error(`expected the 40 entries before the limit, got ${summarize(result.logs)}`)
      await expectHealthy(sandbox, 'MEMORY_LIMIT')
    },
  },
  memory('ArrayBuffer growth', 'const b = []\nfor (;;) b.push(new Uint8Array(4 * 1024 * 1024).fill(1))'),
  memory(
    'a guest that catches its own out-of-memory error still ends with MEMORY_LIMIT',
    "let a = []\ntry {\n  for (;;) a.push(new Array(1e5).fill(a.length))\n} catch (e) {\n  a = null\n  return 'caught ' + e\n}",
  ),
  memory(
    'a guest that catches a failed ArrayBuffer allocation still ends with MEMORY_LIMIT',
    "let b = []\ntry {\n  for (;;) b.push(new Uint8Array(4 * 1024 * 1024).fill(1))\n} catch (e) {\n  b = null\n  return 'caught ' + e\n}",
  ),
  {
    group: 'limits',
    name: 'memoryMb: a program well under the cap runs',
    requires: { memoryLimit: true },
    async run({ sandbox }) {
      const { result } = await timedRun(sandbox, 'const a = new Array(1e5).fill(1); a.length', { memoryMb: MEMORY_MB })
      if (!result.ok || result.value !== 1e5) throw new Error(`expected 100000, got ${summarize(result)}`)
    },
  },
  ...oomPathChecks,
]
