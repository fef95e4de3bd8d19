import { createSandbox } from '@cordon/core'
import { afterAll, describe, expect, test } from 'vitest'
import { createQuickJSBackend } from '../src/index.js'

const MB = 1024 * 1024
const sandbox = createSandbox(createQuickJSBackend(), { memoryMb: 32, timeoutMs: 20_000 })
afterAll(() => sandbox.dispose())

async function code(program: string): Promise<string> {
  const result = await sandbox.run(program)
  return result.ok ? 'ok' : result.error.code
}

describe('memoryMb bounds the total, not each allocation', () => {
  // runtime.setMemoryLimit alone lets all of these through: quickjs-emscripten 0.32.0 counts
  // 8 bytes per block under Emscripten (issue #271).
  test('many 1 MB strings', async () => {
    expect(await code("const keep = []\nfor (let i = 0; i < 100; i++) keep.push('x'.repeat(1024 * 1024) + i)\nreturn keep.length")).toBe(
      'MEMORY_LIMIT',
    )
  })

  test('many typed arrays', async () => {
    expect(await code('const keep = []\nfor (let i = 0; i < 100; i++) keep.push(new Uint8Array(1024 * 1024))\nreturn keep.length')).toBe(
      'MEMORY_LIMIT',
    )
  })

  test('one allocation larger than the cap, caught by the guest', async () => {
    expect(await code("try {\n  new ArrayBuffer(256 * 1024 * 1024)\n} catch (e) {\n  return 'caught'\n}")).toBe('MEMORY_LIMIT')
  })

  test('a growable ArrayBuffer resized past the cap', async () => {
    expect(
      await code(
        'const b = new ArrayBuffer(1024, { maxByteLength: 1024 * 1024 * 1024 })\nfor (let i = 1; ; i++) b.resize(i * 1024 * 1024)',
      ),
    ).toBe('MEMORY_LIMIT')
  })
})

describe('under the cap', () => {
  test('half of memoryMb can be used, and heapBytes shows it', async () => {
    const result = await sandbox.run('const b = new Uint8Array(16 * 1024 * 1024).fill(7)\nreturn b[b.length - 1]')
    expect(result).toMatchObject({ ok: true, value: 7 })
    expect(result.stats.heapBytes).toBeGreaterThanOrEqual(16 * MB)
    expect(result.stats.heapBytes).toBeLessThanOrEqual(33 * MB)
  })

  test('a larger memoryMb allows more', async () => {
    const program = 'const keep = []\nfor (let i = 0; i < 48; i++) keep.push(new Uint8Array(1024 * 1024).fill(1))\nreturn keep.length'
    expect(await code(program)).toBe('MEMORY_LIMIT')
    expect(await sandbox.run(program, { memoryMb: 96 })).toMatchObject({ ok: true, value: 48 })
  })

  test('a value returned before the guest later runs out of memory is the result', async () => {
    const program = "setTimeout(() => {\n  const a = []\n  for (;;) a.push(new Array(1e4).fill(1))\n}, 0)\nreturn 'first'"
    expect(await sandbox.run(program)).toMatchObject({ ok: true, value: 'first' })
  })

  test('runs after a MEMORY_LIMIT are unaffected', async () => {
    expect(await code('const a = []\nfor (;;) a.push(new Array(1e5).fill(1))')).toBe('MEMORY_LIMIT')
    expect(await sandbox.run('[1, 2, 3].map((x) => x * 2)')).toMatchObject({ ok: true, value: [2, 4, 6] })
  })
})
