import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Sandbox } from '@cordon/core'
import { errorOf, open, valueOf } from './helpers.js'

let sandbox: Sandbox

beforeAll(async () => {
  ;({ sandbox } = await open({ poolSize: 3 }))
})
afterAll(async () => {
  await sandbox.dispose()
})

describe('runs in a child', () => {
  it('report cpu time and heap size', async () => {
    const result = await sandbox.run('let s = 0\nfor (let i = 0; i < 1e6; i++) s += i\nreturn s')
    expect(valueOf(result)).toBe(499999500000)
    expect(result.stats.cpuMs).toBeGreaterThan(0)
    expect(result.stats.heapBytes).toBeGreaterThan(0)
  })

  it('a huge thrown message is cut, not a protocol breach', async () => {
    const error = errorOf(await sandbox.run("throw new Error('x'.repeat(5_000_000))", { maxOutputBytes: 10_000 }))
    expect(error.code).toBe('RUNTIME_ERROR')
    expect(error.message.length).toBeLessThan(10_000)
    expect(error.message).toMatch(/cut by cordon/)
  })

  it('syntax errors carry the position', async () => {
    const error = errorOf(await sandbox.run('const a = 1\nconst b = (\nreturn a'))
    expect(error.code).toBe('SYNTAX_ERROR')
  })

  it('guest stacks show guest frames only', async () => {
    const error = errorOf(await sandbox.run('function inner() { throw new Error("where") }\ninner()'))
    expect(error.stack).toMatch(/inner/)
    expect(error.stack).not.toMatch(/file:|node:|cordon-|child\.js/)
  })

  it('tools, timers and logs interleave', async () => {
    const tools = { 'math.add': { execute: async ({ a, b }: { a: number; b: number }) => a + b } }
    const code = `
      console.log('start')
      const [x, y] = await Promise.all([math.add({ a: 1, b: 2 }), new Promise((r) => setTimeout(() => r(10), 15))])
      let ticks = 0
      await new Promise((r) => { const id = setInterval(() => { if (++ticks === 3) { clearInterval(id); r() } }, 2) })
      console.warn('end', x + y, ticks)
      return x + y`
    const result = await sandbox.run(code, { tools })
    expect(valueOf(result)).toBe(13)
    expect(result.logs).toEqual([
      { level: 'log', message: 'start' },
      { level: 'warn', message: 'end 13 3' },
    ])
  })

  it('promises the child settles on its own (async wasm compile, import()) still reach the guest', async () => {
    const code = `
      const wasm = await WebAssembly.instantiate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]))
      let imported
      try { await import('node:fs'); imported = 'imported' } catch (e) { imported = 'refused' }
      return [typeof wasm.instance, imported]`
    const started = Date.now()
    expect(valueOf(await sandbox.run(code, { timeoutMs: 5_000 }))).toEqual(['object', 'refused'])
    expect(Date.now() - started).toBeLessThan(1_000)
  })

  it('stops a microtask flood, a busy timer and a loop after a tool result at the deadline', async () => {
    const tools = { 'host.echo': { execute: (value: unknown) => value } }
    for (const code of [
      'const f = () => Promise.resolve().then(f)\nf()\nawait new Promise(() => {})',
      'setTimeout(() => { for (;;) {} }, 5)\nawait new Promise(() => {})',
      // Tool results resume the guest without the child's own watchdog: the host's kill stops these.
      'await host.echo(1)\nfor (;;) {}',
      'await host.echo(1)\nconst f = () => Promise.resolve().then(f)\nf()\nawait new Promise(() => {})',
    ]) {
      const started = Date.now()
      expect(errorOf(await sandbox.run(code, { timeoutMs: 250, tools })).code).toBe('TIMEOUT')
      expect(Date.now() - started).toBeLessThan(750)
    }
  })
})
