import type { RunError } from '@cordon/core'
import { expectError, timedRun } from '../harness/run.js'
import type { ConformanceCheck } from '../types.js'

/**
 * A stack, where the engine gives one, reads as the user's program: `Name: message` first, then
 * frames at the lines of the code as written (TypeScript included), none of cordon's runtime.
 */
function expectUserStack(error: RunError, header: string, lines: readonly number[]): void {
  const stack = error.stack
  if (stack === undefined) return
  if (!stack.startsWith(header + '\n')) throw new Error(`the stack should start with ${JSON.stringify(header)}, got: ${stack}`)
  if (/cordon-runtime/.test(stack)) throw new Error(`the stack shows cordon's runtime frames: ${stack}`)
  const shown = [...stack.matchAll(/guest\.js:(\d+)/g)].map((m) => Number(m[1]))
  if (shown.join() !== lines.join()) {
    throw new Error(`the stack's frames should be at the program's lines ${lines.join(', ')}, got ${shown.join(', ')}: ${stack}`)
  }
}

async function runtimeError(sandbox: Parameters<ConformanceCheck['run']>[0]['sandbox'], code: string): Promise<RunError> {
  // A short deadline: a run that fails to report the error must not pass as slow.
  const { result } = await timedRun(sandbox, code, { timeoutMs: 5_000 })
  return expectError(result, 'RUNTIME_ERROR')
}

export const stackChecks: ConformanceCheck[] = [
  {
    group: 'errors',
    name: "runaway recursion ends the same way everywhere: RUNTIME_ERROR RangeError 'Maximum call stack size exceeded'",
    async run({ sandbox }) {
      const error = await runtimeError(sandbox, 'function dive(n) { return dive(n + 1) + 1 }\ndive(0)')
      if (error.name !== 'RangeError' || error.message !== 'Maximum call stack size exceeded') {
        throw new Error(`expected RangeError: Maximum call stack size exceeded, got ${String(error.name)}: ${error.message}`)
      }
      if (error.line !== undefined && error.line !== 1) throw new Error(`error.line should be 1, got ${error.line}`)
    },
  },
  {
    group: 'errors',
    name: "a guest error's stack lists the program's frames at the lines written, not cordon's runtime",
    async run({ sandbox }) {
      const code = "function inner() {\n  throw new TypeError('deep')\n}\nfunction outer() {\n  inner()\n}\nouter()"
      expectUserStack(await runtimeError(sandbox, code), 'TypeError: deep', [2, 5, 7])
    },
  },
  {
    group: 'errors',
    name: "a TypeScript program's stack is at the lines of the TypeScript as written",
    async run({ sandbox }) {
      const code =
        "interface Point {\n  x: number\n}\nfunction fail(p: Point): never {\n  throw new Error('at ' + p.x)\n}\nfail({ x: 1 } as Point)"
      expectUserStack(await runtimeError(sandbox, code), 'Error: at 1', [5, 7])
    },
  },
]
