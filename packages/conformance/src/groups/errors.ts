import type { RunError } from '@cordon/core'
import { hostTraces } from '../harness/host-paths.js'
import { expectError, summarize, timedRun } from '../harness/run.js'
import type { ConformanceCheck } from '../types.js'
import { deadlockChecks } from './errors-deadlock.js'
import { hostMisuseChecks } from './errors-options.js'
import { stackChecks } from './errors-stacks.js'

function expectNamed(error: RunError, name: string, message: string): void {
  if (error.name !== name || error.message !== message) {
    throw new Error(`expected ${name}: ${JSON.stringify(message)}, got ${String(error.name)}: ${JSON.stringify(error.message)}`)
  }
}

/** `line` is optional (engines without positions), but when reported it must be the user's line. */
function expectLineIfPresent(error: RunError, line: number): void {
  if (error.line !== undefined && error.line !== line) {
    throw new Error(`error.line should be ${line} (the user's line of the throw), got ${error.line}; stack: ${String(error.stack)}`)
  }
  if (error.column !== undefined && !(Number.isInteger(error.column) && error.column >= 1)) {
    throw new Error(`error.column should be a 1-based integer, got ${String(error.column)}`)
  }
}

function runtimeError(name: string, code: string, check: (error: RunError) => void): ConformanceCheck {
  return {
    group: 'errors',
    name,
    async run({ sandbox }) {
      // A short deadline: a run that fails to report the error must not pass as slow.
      const { result } = await timedRun(sandbox, code, { timeoutMs: 3_000 })
      check(expectError(result, 'RUNTIME_ERROR'))
    },
  }
}

const guestErrorChecks: ConformanceCheck[] = [
  runtimeError("throw new TypeError('x') → RUNTIME_ERROR TypeError 'x'", "throw new TypeError('x')", (e) =>
    expectNamed(e, 'TypeError', 'x'),
  ),
  runtimeError('a custom Error subclass keeps its name', "class MyErr extends Error { name = 'MyErr' }\nthrow new MyErr('mine')", (e) =>
    expectNamed(e, 'MyErr', 'mine'),
  ),
  runtimeError("throw 'str' → message 'str'", "throw 'str'", (e) => {
    if (e.message !== 'str') throw new Error(`message should be 'str', got ${JSON.stringify(e.message)}`)
  }),
  runtimeError('a rejected promise awaited at top level', "await Promise.reject(new RangeError('rejected'))", (e) =>
    expectNamed(e, 'RangeError', 'rejected'),
  ),
  runtimeError('a rejected promise returned at top level', "return Promise.reject(new Error('returned'))", (e) =>
    expectNamed(e, 'Error', 'returned'),
  ),
  runtimeError(
    'an error thrown deep in async functions',
    "async function a() { await null; throw new SyntaxError('deep') }\nasync function b() { return await a() }\nawait b()",
    (e) => expectNamed(e, 'SyntaxError', 'deep'),
  ),
  runtimeError('a unicode message is kept', "throw new Error('échec ✗ 失敗 😢')", (e) => expectNamed(e, 'Error', 'échec ✗ 失敗 😢')),
  runtimeError('throwing a plain object is a RUNTIME_ERROR', 'throw { code: 42 }', () => {}),
  runtimeError(
    "throw { name, message } → RUNTIME_ERROR with that name and message, not the object's inspection",
    "throw { name: 'QuotaError', message: 'over quota', code: 'E_QUOTA' }",
    (e) => expectNamed(e, 'QuotaError', 'over quota'),
  ),
  runtimeError('throw { message } → RUNTIME_ERROR Error with that message', "throw { message: 'only a message' }", (e) =>
    expectNamed(e, 'Error', 'only a message'),
  ),
  runtimeError(
    'an error whose prototype the guest removed keeps its own message',
    "const e = new RangeError('lost its class')\nObject.setPrototypeOf(e, null)\nthrow e",
    (e) => expectNamed(e, 'Error', 'lost its class'),
  ),
  runtimeError(
    "an error-shaped object's message getter is not run: the object is described instead",
    "let ran = false\nthrow { name: 'X', get message() { ran = true; return 'from a getter' } }",
    (e) => {
      if (e.message === 'from a getter') throw new Error(`the getter ran: ${summarize(e)}`)
    },
  ),
  runtimeError('throwing null is a RUNTIME_ERROR', 'throw null', () => {}),
  runtimeError(
    'an error whose message getter throws is still a RUNTIME_ERROR',
    "const e = new Error('x'); Object.defineProperty(e, 'message', { get() { throw new Error('no') } }); throw e",
    () => {},
  ),
  runtimeError(
    'throwing a hostile Proxy is a RUNTIME_ERROR',
    'throw new Proxy({}, { get() { throw new Error("trap") }, getPrototypeOf() { throw new Error("trap") } })',
    () => {},
  ),
  runtimeError('error.line is the line of the throw (if reported)', "const a = 1\nconst b = 2\nthrow new Error('line three')", (e) => {
    expectNamed(e, 'Error', 'line three')
    expectLineIfPresent(e, 3)
  }),
  runtimeError(
    'error.line counts the markdown fence and the text around it (if reported)',
    "Here is the code:\n```js\nconst a = 1\nthrow new Error('fenced')\n```\nThat is all.",
    (e) => {
      expectNamed(e, 'Error', 'fenced')
      expectLineIfPresent(e, 4)
    },
  ),
  runtimeError(
    'error.line is right in TypeScript code (if reported)',
    "interface A {\n  x: number\n}\nconst n: number = 1\nthrow new Error('typed')",
    (e) => {
      expectNamed(e, 'Error', 'typed')
      expectLineIfPresent(e, 5)
    },
  ),
  runtimeError('a guest error stack shows no host paths', 'function inner() { throw new Error("where") }\ninner()', (e) => {
    const traces = hostTraces(`${e.stack ?? ''}\n${e.message}`)
    if (traces.length > 0) throw new Error(`the stack shows host paths ${summarize(traces)}: ${String(e.stack)}`)
  }),
  {
    group: 'errors',
    name: 'an error thrown in a setTimeout callback ends the run as RUNTIME_ERROR',
    async run({ sandbox }) {
      const code =
        "setTimeout(() => { throw new Error('late') }, 10)\nawait new Promise((resolve) => setTimeout(resolve, 5000))\nreturn 'not reached'"
      const { result, elapsedMs } = await timedRun(sandbox, code)
      expectNamed(expectError(result, 'RUNTIME_ERROR'), 'Error', 'late')
      if (elapsedMs > 3000) throw new Error(`the run should end when the callback throws, it took ${Math.round(elapsedMs)} ms`)
    },
  },
]

export const errorsChecks: readonly ConformanceCheck[] = [...guestErrorChecks, ...stackChecks, ...deadlockChecks, ...hostMisuseChecks]
