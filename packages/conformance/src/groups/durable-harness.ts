/** What the durable checks share: a keyed sandbox, counted tools, and result expectations. */
import type { RunResult, RunInterrupted, Sandbox, ToolSet } from '@cordon/core'
import { summarize } from '../harness/run.js'
import type { CheckContext } from '../types.js'

/** A host key for the checks' sandboxes (any 32 bytes will do). */
export const DURABLE_KEY = 'conformance-durable-key-0123456789abcdef'

export const durableSandbox = (ctx: CheckContext, options: { encrypt?: boolean } = {}): Promise<Sandbox> =>
  ctx.newSandbox({ durable: { keys: [DURABLE_KEY], ...options } })

/** Tools that count their calls: `t.read(n)` returns `read:n`, `t.slow(n)` `slow:n` after 300 ms, `t.fail()` throws, `ask.human(q)` pauses. */
export function countedTools(): { tools: ToolSet; calls: Record<string, number>; total: () => number } {
  const calls: Record<string, number> = {}
  const count = (name: string) => (calls[name] = (calls[name] ?? 0) + 1)
  const tools: ToolSet = {
    't.read': { execute: (n: unknown) => (count('t.read'), `read:${String(n)}`) },
    't.slow': {
      execute: async (n: unknown) => {
        count('t.slow')
        await new Promise((resolve) => setTimeout(resolve, 300))
        return `slow:${String(n)}`
      },
    },
    't.fail': {
      execute: () => {
        count('t.fail')
        throw new Error('the host said no')
      },
    },
    'ask.human': { execute: (question: unknown, ctx) => (count('ask.human'), ctx.interrupt({ question })) },
  }
  return { tools, calls, total: () => Object.values(calls).reduce((a, b) => a + b, 0) }
}

export function expectPaused(result: RunResult, what: string): RunInterrupted {
  if (result.ok || !result.interrupted) throw new Error(`${what}: expected an INTERRUPTED result, got ${summarize(result)}`)
  if (result.error.code !== 'INTERRUPTED') throw new Error(`${what}: an interrupted result must have error.code INTERRUPTED`)
  if (typeof result.continuation !== 'string' || result.continuation.length === 0) throw new Error(`${what}: no continuation`)
  return result
}

export function expectEqual(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual)
  const e = JSON.stringify(expected)
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`)
}
