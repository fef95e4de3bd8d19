import { createSandbox } from '@cordon/core'
import { afterAll, expect, test } from 'vitest'
import { createQuickJSBackend } from '../src/index.js'

const MB = 1024 * 1024
const sandbox = createSandbox(createQuickJSBackend())
afterAll(() => sandbox.dispose())

async function forceGc(): Promise<() => void> {
  const g = globalThis as { gc?: () => void; Bun?: { gc(force: boolean): void } }
  if (typeof g.gc === 'function') return g.gc
  if (g.Bun !== undefined) return () => g.Bun?.gc(true)
  const v8 = await import('node:v8')
  const vm = await import('node:vm')
  v8.setFlagsFromString('--expose-gc')
  return vm.runInNewContext('gc') as () => void
}

async function settledUsage(gc: () => void): Promise<{ rss: number; heap: number }> {
  for (let i = 0; i < 3; i++) {
    gc()
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const usage = process.memoryUsage()
  return { rss: usage.rss, heap: usage.heapUsed + usage.external }
}

/**
 * Every run owns a WASM instance whose memory it fills with 24 MB here. Were instances (or their
 * memories) kept after their run, 60 runs would hold ~1.4 GB, over five times the RSS allowed;
 * the host must stay flat instead.
 */
test('60 runs that each fill 24 MB of guest memory leave the host flat', { timeout: 180_000 }, async () => {
  const gc = await forceGc()
  const code =
    'const chunks = []\nfor (let i = 0; i < 6; i++) chunks.push(new Uint8Array(4 * 1024 * 1024).fill(i + 1))\nreturn chunks.length'
  for (let i = 0; i < 10; i++) expect(await sandbox.run(code, { memoryMb: 64 })).toMatchObject({ ok: true, value: 6 })
  const before = await settledUsage(gc)
  for (let i = 0; i < 60; i++) expect(await sandbox.run(code, { memoryMb: 64 })).toMatchObject({ ok: true, value: 6 })
  const after = await settledUsage(gc)
  const rssGrowth = (after.rss - before.rss) / MB
  const heapGrowth = (after.heap - before.heap) / MB
  expect(rssGrowth, `RSS grew by ${rssGrowth.toFixed(1)} MB`).toBeLessThan(250)
  expect(heapGrowth, `heap + external grew by ${heapGrowth.toFixed(1)} MB`).toBeLessThan(100)
})

/** The conformance suite repeats this with its own programs; here the mix leans on the engine paths. */
test('1,000 runs of every kind of ending keep host memory bounded', { timeout: 300_000 }, async () => {
  const gc = await forceGc()
  const tools = { 't.echo': { execute: (args: unknown) => args }, 't.sync': { sync: true, execute: () => 1 } }
  const programs: [string, number][] = [
    ['return n * 2', 0],
    ["console.log('n', n)\nreturn [await t.echo({ n }), t.sync()]", 0],
    ["throw new Error('e' + n)", 0],
    ['let = n', 0],
    ['for (;;) {}', 30],
    ['await new Promise((resolve) => setTimeout(resolve, 0))\nreturn new Map([[n, String(n)]])', 0],
  ]
  const runAll = async (from: number, count: number): Promise<void> => {
    for (let n = from; n < from + count; n++) {
      const [code, timeoutMs] = programs[n % programs.length] as [string, number]
      const result = await sandbox.run(code, { globals: { n }, tools, ...(timeoutMs ? { timeoutMs } : {}) })
      expect(result.ok || ['RUNTIME_ERROR', 'SYNTAX_ERROR', 'TIMEOUT'].includes(result.error.code)).toBe(true)
    }
  }
  await runAll(0, 60)
  const before = await settledUsage(gc)
  await runAll(60, 1000)
  const after = await settledUsage(gc)
  const rssGrowth = (after.rss - before.rss) / MB
  const heapGrowth = (after.heap - before.heap) / MB
  expect(rssGrowth, `RSS grew by ${rssGrowth.toFixed(1)} MB`).toBeLessThan(80)
  expect(heapGrowth, `heap + external grew by ${heapGrowth.toFixed(1)} MB`).toBeLessThan(40)
})
