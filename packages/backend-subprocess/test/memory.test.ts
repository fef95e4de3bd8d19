import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Sandbox } from '@cordon/core'
import { errorOf, open, valueOf } from './helpers.js'

let sandbox: Sandbox

beforeAll(async () => {
  ;({ sandbox } = await open({ poolSize: 2 }))
})
afterAll(async () => {
  await sandbox.dispose()
})

const run = (code: string, memoryMb = 32) => sandbox.run(code, { memoryMb, timeoutMs: 20_000 })

describe('memoryMb', () => {
  it('a heap that outgrows memoryMb ends MEMORY_LIMIT (V8 fatal OOM in the child)', async () => {
    const error = errorOf(await run('const a = []\nfor (;;) a.push({ x: Math.random(), s: "v" + Math.random() })'))
    expect(error.code).toBe('MEMORY_LIMIT')
    expect(valueOf(await run('1 + 1'))).toBe(2)
  })

  it('ArrayBuffers (outside the V8 heap) that outgrow memoryMb end MEMORY_LIMIT', async () => {
    const error = errorOf(await run('const b = []\nfor (;;) b.push(new Uint8Array(4 * 1024 * 1024).fill(1))'))
    expect(error.code).toBe('MEMORY_LIMIT')
  })

  it('...also when the guest catches every allocation failure and keeps going', async () => {
    const code = 'const b = []\nfor (;;) { try { b.push(new Uint8Array(4 * 1024 * 1024).fill(1)) } catch (e) {} }'
    expect(errorOf(await run(code)).code).toBe('MEMORY_LIMIT')
  })

  it('...also when the buffers are never touched and the program finishes', async () => {
    const code = 'const b = []\ntry { for (let i = 0; i < 64; i++) b.push(new ArrayBuffer(8 * 1024 * 1024)) } catch (e) {}\nreturn b.length'
    expect(errorOf(await run(code)).code).toBe('MEMORY_LIMIT')
  })

  it('...and when they are grown WebAssembly memory', async () => {
    const code =
      'const m = new WebAssembly.Memory({ initial: 1, maximum: 4096 })\nfor (let i = 0; i < 60; i++) { m.grow(64); new Uint8Array(m.buffer).fill(1) }\nreturn m.buffer.byteLength'
    expect(errorOf(await run(code)).code).toBe('MEMORY_LIMIT')
  })

  it('programs within memoryMb run normally, ArrayBuffers included', async () => {
    const code =
      'const b = new Uint8Array(8 * 1024 * 1024).fill(7)\nconst a = Array.from({ length: 100000 }, (_, i) => ({ i }))\nreturn b[123] + a.length'
    expect(valueOf(await run(code))).toBe(100007)
  })

  it('the smallest memoryMb (8) still runs a program', async () => {
    expect(valueOf(await run('return [1, 2, 3].map((x) => x * 2)', 8))).toEqual([2, 4, 6])
  })

  it('the host and the pool stay healthy after all of that', async () => {
    const results = await Promise.all(Array.from({ length: 4 }, (_, i) => sandbox.run(`${i} * 2`)))
    expect(results.map(valueOf)).toEqual([0, 2, 4, 6])
  })
})
