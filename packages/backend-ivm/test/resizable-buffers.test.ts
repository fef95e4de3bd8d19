/**
 * Resizable ArrayBuffers and growable SharedArrayBuffers work as on V8, and each is charged its
 * maximum against memoryMb for as long as it lives (V8 reserves and commits their memory outside
 * the allocator isolated-vm counts). No view over one ever reaches an isolated-vm copy.
 */
import { afterAll, describe, expect, test } from 'vitest'
import { codeOf, ivmSandbox, valueOf } from './helpers.js'

const sandbox = ivmSandbox()
afterAll(() => sandbox.dispose())

const MEMORY_MB = 32

describe('resizable buffers work', () => {
  test('create, resize and grow; views track the length', async () => {
    const result = await sandbox.run(`
const rab = new ArrayBuffer(2, { maxByteLength: 16 })
const tracking = new Uint8Array(rab)
const fixed = new Uint8Array(rab, 0, 2)
rab.resize(6)
tracking.fill(7)
const grown = [rab.resizable, rab.byteLength, rab.maxByteLength, tracking.length, fixed.length]
rab.resize(1)
const shrunk = [rab.byteLength, tracking.length, fixed.length, fixed.byteOffset]
const sab = new SharedArrayBuffer(4, { maxByteLength: 64 })
sab.grow(32)
let tooBig
try { rab.resize(17) } catch (e) { tooBig = e.name }
return { grown, shrunk, shared: [sab.growable, sab.byteLength, sab.maxByteLength], tooBig, fixedLength: new ArrayBuffer(8, {}).resizable }`)
    expect(valueOf(result)).toEqual({
      grown: [true, 6, 16, 6, 2],
      shrunk: [1, 1, 0, 0],
      shared: [true, 32, 64],
      tooBig: 'RangeError',
      fixedLength: false,
    })
  })

  test('subclasses, transfer and slice', async () => {
    const result = await sandbox.run(`
class Bytes extends ArrayBuffer {}
const b = new Bytes(4, { maxByteLength: 64 })
b.resize(8)
new Uint8Array(b).set([1, 2, 3])
const out = { subclass: [b instanceof Bytes, b.resizable, b.byteLength], slice: [...new Uint8Array(b.slice(1, 3))] }
if (typeof b.transfer === 'function') {
  const moved = b.transfer(16)
  const fixed = moved.transferToFixedLength()
  out.transfer = [b.detached, moved.detached, fixed.resizable, fixed.byteLength, [...new Uint8Array(fixed, 0, 4)]]
} else {
  out.transfer = [true, true, false, 16, [1, 2, 3, 0]]
}
return out`)
    expect(valueOf(result)).toEqual({
      subclass: [true, true, 8],
      slice: [2, 3],
      transfer: [true, true, false, 16, [1, 2, 3, 0]],
    })
  })

  test('values over resizable buffers cross to the host by their current contents', async () => {
    const result = await sandbox.run(`
const rab = new ArrayBuffer(2, { maxByteLength: 16 })
const tracking = new Uint16Array(rab)
const fixed = new Uint8Array(rab, 0, 2)
rab.resize(8)
tracking.set([1, 2, 3, 4])
const beforeShrink = new Uint8Array(rab).slice()
rab.resize(1)
return { tracking, fixed, buffer: rab, beforeShrink, sab: new Uint8Array(new SharedArrayBuffer(2, { maxByteLength: 4 })) }`)
    const value = valueOf(result) as Record<string, unknown>
    // The fixed-length view is out of bounds after the shrink: it reads as empty, as in the guest.
    expect(value.tracking).toEqual(new Uint16Array(0))
    expect(value.fixed).toEqual(new Uint8Array(0))
    expect(value.buffer).toBeInstanceOf(ArrayBuffer)
    expect(new Uint8Array(value.buffer as ArrayBuffer)).toEqual(new Uint8Array([1]))
    expect(value.beforeShrink).toEqual(new Uint8Array([1, 0, 2, 0, 3, 0, 4, 0]))
    expect(value.sab).toEqual(new Uint8Array(2))
  })

  test('a tool gets and returns values built over resizable buffers', async () => {
    const seen: unknown[] = []
    const result = await sandbox.run(
      `const rab = new ArrayBuffer(3, { maxByteLength: 8 })
new Uint8Array(rab).set([5, 6, 7])
const back = await echo({ bytes: new Uint8Array(rab) })
rab.resize(1)
return [back.bytes, new Uint8Array(rab)]`,
      {
        tools: {
          echo: {
            execute: (args: unknown) => {
              seen.push(args)
              return args
            },
          },
        },
      },
    )
    expect(seen).toEqual([{ bytes: new Uint8Array([5, 6, 7]) }])
    expect(valueOf(result)).toEqual([new Uint8Array([5, 6, 7]), new Uint8Array([5])])
  })
})

describe('resizable buffers count against memoryMb by their maximum', () => {
  test('buffers whose maximums fit run; one more than fits ends MEMORY_LIMIT, even caught', async () => {
    const fits = await sandbox.run(
      'const k = []\nfor (let i = 0; i < 3; i++) k.push(new ArrayBuffer(1, { maxByteLength: 4 << 20 }))\nreturn k.length',
      { memoryMb: MEMORY_MB },
    )
    expect(valueOf(fits)).toBe(3)
    for (const code of [
      'const k = []\nfor (let i = 0; i < 16; i++) k.push(new ArrayBuffer(1, { maxByteLength: 4 << 20 }))\nreturn k.length',
      "try { new ArrayBuffer(0, { maxByteLength: 64 << 20 }) } catch (e) { return 'caught ' + e.name }",
      "try { new SharedArrayBuffer(0, { maxByteLength: 64 << 20 }) } catch (e) { return 'caught ' + e.name }",
    ]) {
      expect(codeOf(await sandbox.run(code, { memoryMb: MEMORY_MB }))).toBe('MEMORY_LIMIT')
    }
    expect(valueOf(await sandbox.run('1 + 1'))).toBe(2)
  })

  test('the charge is counted before anything is written and given back when the buffer is collected', async () => {
    // 100 buffers of 8 MB at most, each dropped: far more than memoryMb in all, never at once.
    const result = await sandbox.run(
      'let n = 0\nfor (let i = 0; i < 100; i++) { const b = new ArrayBuffer(1, { maxByteLength: 8 << 20 }); n += b.maxByteLength }\nreturn n',
      { memoryMb: MEMORY_MB },
    )
    expect(valueOf(result)).toBe(100 * (8 << 20))
  })

  test('a transferred buffer keeps its charge', async () => {
    const result = await sandbox.run(
      `if (typeof ArrayBuffer.prototype.transfer !== 'function') return 'no transfer'
const k = []
for (let i = 0; i < 16; i++) k.push(new ArrayBuffer(1, { maxByteLength: 4 << 20 }).transfer())
return k.length`,
      { memoryMb: MEMORY_MB },
    )
    expect(['MEMORY_LIMIT', 'OK']).toContain(codeOf(result))
    if (result.ok) expect(result.value).toBe('no transfer')
  })
})

describe('no view over a resizable buffer reaches an isolated-vm copy', () => {
  test('a view over a shrunk buffer thrown at the runtime (from a getter it meets in a session) reaches the host as a plain error', async () => {
    const session = await sandbox.createSession({ memoryMb: MEMORY_MB, tools: { 'kv.get': { execute: () => 1 } } })
    await session.run(`
const rab = new ArrayBuffer(4096, { maxByteLength: 4096 })
const view = new Uint8Array(rab, 0, 4096)
view.fill(65)
rab.resize(0)
Object.defineProperty(globalThis, 'kv', { get() { throw view }, configurable: true })`)
    const result = await session.run('await kv.get()')
    expect(codeOf(result)).toBe('RUNTIME_ERROR')
    if (!result.ok) expect(result.error.message).not.toMatch(/65/)
    expect(valueOf(await sandbox.run('1 + 1'))).toBe(2)
    await session.dispose()
  })
})
