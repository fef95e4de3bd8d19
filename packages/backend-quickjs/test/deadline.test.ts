import { createSandbox } from '@cordon/core'
import { afterAll, expect, test } from 'vitest'
import { createQuickJSBackend } from '../src/index.js'
import { codeOf, executeDirect } from './helpers/execute.js'

const backend = createQuickJSBackend()
const sandbox = createSandbox(backend)
afterAll(() => sandbox.dispose())

const FLOOD = 'const f = () => Promise.resolve().then(f)\nf()\nawait new Promise(() => {})'

test('a synchronous loop stops at the deadline even without @cordon/core', async () => {
  const run = await executeDirect(backend, 'for (;;) {}', { timeoutMs: 250 })
  expect(codeOf(run)).toBe('TIMEOUT')
  expect(run.elapsedMs).toBeLessThan(250 + 500)
})

test('waiting on a tool ends at the deadline even without @cordon/core', async () => {
  const run = await executeDirect(backend, 'await t.never()', { timeoutMs: 250, tools: { 't.never': () => new Promise(() => {}) } })
  expect(codeOf(run)).toBe('TIMEOUT')
  expect(run.elapsedMs).toBeLessThan(250 + 500)
})

test('a microtask flood leaves the host event loop turning', async () => {
  let ticks = 0
  const interval = setInterval(() => ticks++, 10)
  const started = performance.now()
  // The flood's promise chain grows ~55 MB a second: room enough that the deadline ends it, even
  // when a busy machine delays the deadline's timer.
  const result = await sandbox.run(FLOOD, { timeoutMs: 1_000, memoryMb: 512 })
  clearInterval(interval)
  expect(result).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } })
  expect(performance.now() - started).toBeLessThan(1_000 + 500)
  // Blocked for the whole second, the interval would have fired at most once.
  expect(ticks).toBeGreaterThan(10)
})

test('aborting during a microtask flood ends the run promptly', async () => {
  const controller = new AbortController()
  setTimeout(() => controller.abort(), 100)
  const started = performance.now()
  const result = await sandbox.run(FLOOD, { timeoutMs: 10_000, signal: controller.signal })
  expect(result).toMatchObject({ ok: false, error: { code: 'ABORTED' } })
  expect(performance.now() - started).toBeLessThan(100 + 500)
})

test('a sync tool that ends the run (tool-call limit) stops the guest at once', async () => {
  const tools = { 't.tick': { sync: true, execute: () => 1 } }
  const result = await sandbox.run('let n = 0\nfor (;;) { try { n += t.tick() } catch (e) {} }', {
    tools,
    maxToolCalls: 5,
    timeoutMs: 10_000,
  })
  expect(result).toMatchObject({ ok: false, error: { code: 'TOOL_CALL_LIMIT' } })
  expect(result.stats.wallMs).toBeLessThan(2_000)
})

test('concurrent runs each keep their own deadline', async () => {
  const [busy, quick] = await Promise.all([
    sandbox.run('for (;;) {}', { timeoutMs: 300 }),
    sandbox.run("await new Promise((resolve) => setTimeout(resolve, 50))\nreturn 'quick'", { timeoutMs: 5_000 }),
  ])
  expect(busy).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } })
  expect(quick).toMatchObject({ ok: true, value: 'quick' })
})
