import { afterAll, describe, expect, test } from 'vitest'
import { codeOf, ivmSandbox, valueOf } from './helpers.js'

const sandbox = ivmSandbox()
afterAll(() => sandbox.dispose())

describe('runs', () => {
  test('a value, logs and stats', async () => {
    const result = await sandbox.run("console.log('hi', 1)\nreturn 1 + 1")
    expect(valueOf(result)).toBe(2)
    expect(result.logs).toEqual([{ level: 'log', message: 'hi 1' }])
    expect(result.stats.backend).toBe('ivm')
    expect(result.stats.cpuMs).toBeGreaterThan(0)
    expect(result.stats.heapBytes).toBeGreaterThan(100_000)
  })

  test('cpuMs counts the run only, not the isolate preparation', async () => {
    const idle = await sandbox.run('1')
    const busy = await sandbox.run('let x = 0\nfor (let i = 0; i < 3e7; i++) x += i\nx')
    expect(idle.stats.cpuMs).toBeLessThan(20)
    expect(busy.stats.cpuMs).toBeGreaterThan(idle.stats.cpuMs! + 5)
  })

  test('syntax errors carry the position in the user code', async () => {
    const result = await sandbox.run('const a = 1\nconst b = (\n')
    expect(codeOf(result)).toBe('SYNTAX_ERROR')
    if (result.ok) return
    expect(result.error.name).toBe('SyntaxError')
    expect(result.error.message).not.toMatch(/guest\.js/)
  })

  test('sync tools work, also in a loop, and their errors are catchable', async () => {
    const result = await sandbox.run(
      "let s = 0\nfor (let i = 0; i < 50; i++) s += add({ a: i, b: 1 })\ntry { boom() } catch (e) { s += ':' + e.message }\ns",
      {
        tools: {
          add: { sync: true, execute: ({ a, b }: { a: number; b: number }) => a + b },
          boom: {
            sync: true,
            execute: () => {
              throw new Error('sync failure')
            },
          },
        },
      },
    )
    expect(valueOf(result)).toBe('1275:sync failure')
  })

  test('a program over memoryMb ends with MEMORY_LIMIT and the next run works', async () => {
    const result = await sandbox.run('const a = []\nfor (;;) a.push(new Array(1e4).fill(a.length))', { memoryMb: 16 })
    expect(codeOf(result)).toBe('MEMORY_LIMIT')
    expect(valueOf(await sandbox.run('40 + 2', { memoryMb: 16 }))).toBe(42)
  })

  test('ArrayBuffer memory counts against memoryMb', async () => {
    const result = await sandbox.run('const k = []\nfor (let i = 0; i < 10; i++) k.push(new ArrayBuffer(8 * 1024 * 1024))\nk.length', {
      memoryMb: 32,
    })
    expect(codeOf(result)).toBe('MEMORY_LIMIT')
    const fits = await sandbox.run('new Uint8Array(8 * 1024 * 1024).length', { memoryMb: 32 })
    expect(valueOf(fits)).toBe(8 * 1024 * 1024)
  })

  test('traps put on Object.prototype never hand the guest an unguarded constructor', async () => {
    // A Proxy looks its traps up on its handler; a handler that inherits from Object.prototype
    // would run a guest-defined \`get\` with the unwrapped ArrayBuffer as its target.
    const result = await sandbox.run(
      `for (const trap of ['get', 'apply', 'construct', 'getOwnPropertyDescriptor', 'has'])
  Object.prototype[trap] = function (target) { globalThis.raw = target; return Reflect[trap](...arguments) }
ArrayBuffer.name
new Uint8Array(1).slice()
const Raw = globalThis.raw ?? ArrayBuffer
try { new Raw(2 ** 40) } catch (e) { return 'caught ' + e.message }`,
      { memoryMb: 32 },
    )
    expect(codeOf(result)).toBe('MEMORY_LIMIT')
  })

  test('typed array methods and subclasses still work behind the allocation guards', async () => {
    const result = await sandbox.run(
      `class Bytes extends Uint8Array { sum() { return this.reduce((a, b) => a + b, 0) } }
const b = new Bytes([1, 2, 3])
const sliced = b.slice(1)
return [b.sum(), sliced instanceof Bytes, sliced.constructor === Bytes, Uint8Array.from([4]).length,
  new Uint8Array(4).buffer instanceof ArrayBuffer, ArrayBuffer.prototype.constructor === ArrayBuffer,
  new ArrayBuffer(8).slice(2).byteLength, Uint8Array.name, ArrayBuffer.isView(b), [...b.toReversed()].join()]`,
    )
    expect(valueOf(result)).toEqual([6, true, true, 1, true, true, 6, 'Uint8Array', true, '3,2,1'])
  })
})
