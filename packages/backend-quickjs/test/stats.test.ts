import { createSandbox } from '@cordon/core'
import { afterAll, expect, test } from 'vitest'
import { createQuickJSBackend } from '../src/index.js'

const sandbox = createSandbox(createQuickJSBackend())
afterAll(() => sandbox.dispose())

test('cpuMs counts time spent running the guest', async () => {
  const result = await sandbox.run('const end = Date.now() + 150\nwhile (Date.now() < end) {}\nreturn 1')
  expect(result.ok).toBe(true)
  expect(result.stats.cpuMs).toBeGreaterThanOrEqual(140)
  expect(result.stats.cpuMs).toBeLessThanOrEqual(result.stats.wallMs)
})

test('cpuMs leaves out time spent inside sync tools', async () => {
  const tools = {
    't.slow': {
      sync: true,
      execute: () => {
        const end = Date.now() + 150
        while (Date.now() < end) {
          // the host is busy, not the guest
        }
        return 1
      },
    },
  }
  const result = await sandbox.run('return t.slow()', { tools })
  expect(result).toMatchObject({ ok: true, value: 1 })
  expect(result.stats.wallMs).toBeGreaterThanOrEqual(140)
  expect(result.stats.cpuMs).toBeLessThan(100)
})

test('heapBytes follows what the guest holds', async () => {
  const small = await sandbox.run('1')
  const large = await sandbox.run('const b = new Uint8Array(24 * 1024 * 1024).fill(1)\nreturn b.length')
  expect(large.ok).toBe(true)
  expect(large.stats.heapBytes).toBeGreaterThan((small.stats.heapBytes ?? 0) + 12 * 1024 * 1024)
})
