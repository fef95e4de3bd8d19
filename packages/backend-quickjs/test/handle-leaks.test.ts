import { afterAll, describe, expect, test } from 'vitest'
import { createQuickJSBackend } from '../src/index.js'
import { debugBuildBackend } from './helpers/debug-build.js'
import { codeOf, executeDirect, type DirectOptions } from './helpers/execute.js'

/**
 * QuickJS asserts in JS_FreeRuntime when any object is still alive, i.e. when the backend forgot
 * to dispose a handle, and the backend passes that failure to `onDisposeError`. The debug build
 * checks the C side more strictly still. Every program below must end with its own outcome and
 * free its engine cleanly, whichever way it ended.
 */
const { backend, disposeErrors } = debugBuildBackend()
afterAll(() => backend.dispose())

const tools = {
  't.echo': (args: unknown) => args,
  't.fail': () => Promise.reject(new Error('nope')),
  't.never': () => new Promise(() => {}),
}
const syncTools = { 't.now': () => 42 }

const programs: [string, string, DirectOptions, string][] = [
  ['a value', 'return { a: [1, 2n, new Map([[1, new Date(0)]])] }', {}, 'ok'],
  ['logs and tools', "console.log('x', { y: 1 })\nreturn [await t.echo({ n: 1 }), t.now()]", { tools, syncTools }, 'ok'],
  ['a failing tool', 'await t.fail()', { tools }, 'RUNTIME_ERROR'],
  ['a thrown error', "throw new TypeError('bad')", {}, 'RUNTIME_ERROR'],
  ['a syntax error', 'let = = 1', {}, 'SYNTAX_ERROR'],
  ['timers left behind', "setInterval(() => {}, 1)\nsetTimeout(() => {}, 50)\nreturn 'left'", {}, 'ok'],
  ['a busy loop past the deadline', 'for (;;) {}', { timeoutMs: 300 }, 'TIMEOUT'],
  ['an await loop past the deadline', 'for (;;) await null', { timeoutMs: 300 }, 'TIMEOUT'],
  ['a tool that never resolves', 'await t.never()', { tools, timeoutMs: 300 }, 'TIMEOUT'],
  ['catching its own stack overflow', 'function f() { f() }\ntry { f() } catch (e) { return e.name }', {}, 'ok'],
  ['pending promises at the end', "new Promise(() => {})\nPromise.reject(new Error('unhandled'))\nreturn 1", {}, 'ok'],
  ['running out of memory', 'const a = []\nfor (;;) a.push(new Array(1e4).fill(1))', { memoryMb: 48 }, 'MEMORY_LIMIT'],
  ['memoryMb too small for the debug build itself', 'return 1', { memoryMb: 8 }, 'MEMORY_LIMIT'],
]

describe('no QuickJS object outlives its run (debug build)', () => {
  for (const [name, body, options, expected] of programs) {
    test(name, async () => {
      disposeErrors.length = 0
      const run = await executeDirect(backend, body, options)
      expect(codeOf(run), run.outcome.ok ? '' : run.outcome.error.message).toBe(expected)
      const expectClean = expected !== 'MEMORY_LIMIT' || name !== 'memoryMb too small for the debug build itself'
      if (expectClean) expect(disposeErrors.map(String)).toEqual([])
    })
  }
})

test('the check can fail: a leak inside QuickJS itself is reported', async () => {
  // QuickJS 2025-09-13 keeps the objects of very long promise chains alive at JS_FreeRuntime
  // (the release build asserts too, and runs this much faster than the debug build).
  const errors: unknown[] = []
  const release = createQuickJSBackend({ engine: 'quickjs-emscripten', onDisposeError: (error) => errors.push(error) })
  const body =
    'let n = 0\nconst f = () => n++ < 40000 && Promise.resolve().then(f)\nf()\nawait new Promise((r) => setTimeout(r, 0))\nreturn n'
  const run = await executeDirect(release, body)
  await release.dispose()
  expect(codeOf(run)).toBe('ok')
  expect(errors.map(String)).toEqual([expect.stringMatching(/Assertion failed: list_empty\(&rt->gc_obj_list\)/)])
})
