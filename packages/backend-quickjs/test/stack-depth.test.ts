import { createSandbox } from '@cordon/core'
import { afterAll, expect, test } from 'vitest'
import { createQuickJSBackend } from '../src/index.js'

const sandbox = createSandbox(createQuickJSBackend())
afterAll(() => sandbox.dispose())

test('ordinary recursion works', async () => {
  expect(await sandbox.run('function depth(n) { return n === 0 ? 0 : 1 + depth(n - 1) }\nreturn depth(500)')).toMatchObject({
    ok: true,
    value: 500,
  })
})

const emscripten = createSandbox(createQuickJSBackend({ engine: 'quickjs-emscripten' }))
afterAll(() => emscripten.dispose())

test('runaway recursion is a catchable error in the guest, not a crash: in V8 words on quickjs-ng, in its own on QuickJS 2025-09-13', async () => {
  const program = 'function f() { f() }\ntry {\n  f()\n} catch (e) {\n  return [e.name, e.message]\n}'
  expect(await sandbox.run(program)).toMatchObject({ ok: true, value: ['RangeError', 'Maximum call stack size exceeded'] })
  expect(await emscripten.run(program)).toMatchObject({ ok: true, value: ['InternalError', 'stack overflow'] })
})

test("uncaught runaway recursion ends the run as on V8: RUNTIME_ERROR RangeError 'Maximum call stack size exceeded'", async () => {
  const result = await sandbox.run('const o = { get x() { return this.x } }\nreturn o.x')
  expect(result).toMatchObject({
    ok: false,
    error: { code: 'RUNTIME_ERROR', name: 'RangeError', message: 'Maximum call stack size exceeded' },
  })
})

// These recurse in C paths QuickJS's own stack check does not watch, until the host's stack runs
// out inside WASM. The run must end as the guest's error and the next runs must be unaffected.
test.each([
  ['deeply nested JSON', "JSON.parse('['.repeat(200000))"],
  ['deeply nested source', "eval('('.repeat(100000) + '1' + ')'.repeat(100000))"],
  ['deeply nested toJSON', 'const o = { toJSON() { return [this] } }\nJSON.stringify(o)'],
])('%s ends the run without harming the host', async (_name, program) => {
  const result = await sandbox.run(program)
  expect(result.ok).toBe(false)
  if (!result.ok) expect(['RUNTIME_ERROR', 'SYNTAX_ERROR']).toContain(result.error.code)
  expect(await sandbox.run('return 40 + 2')).toMatchObject({ ok: true, value: 42 })
})
