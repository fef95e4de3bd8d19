/**
 * A refused ArrayBuffer or wasm-memory allocation is a RangeError the guest can catch, and
 * it holds no memory, so only the child's allocation guard notices it. Every way in must
 * end the run MEMORY_LIMIT even when the guest catches the error; ordinary allocations and
 * ordinary RangeErrors must still work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSandbox, type Sandbox } from '@cordon/core'
import { createSubprocessBackend } from '../src/index.js'
import { errorOf, valueOf } from './helpers.js'

const MEMORY_MB = 32
let sandbox: Sandbox

beforeAll(async () => {
  const backend = createSubprocessBackend({ engine: 'node-vm', poolSize: 2 })
  await backend.warm(MEMORY_MB)
  sandbox = createSandbox(backend, { memoryMb: MEMORY_MB, timeoutMs: 20_000 })
})
afterAll(async () => {
  await sandbox.dispose()
})

/** The guest catches the failure and reports success; the run must not end with that value. */
const caught = (attempt: string) => `try { ${attempt} } catch (e) { return 'caught ' + e }\nreturn 'allocated'`

// A wasm module whose one memory starts at 32000 pages (2 GB).
const BIG_MEMORY_MODULE = 'new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 5, 5, 1, 0, 128, 250, 1])'

const attempts: Record<string, string> = {
  'new ArrayBuffer': 'new ArrayBuffer(2 ** 30)',
  'new SharedArrayBuffer': 'new SharedArrayBuffer(2 ** 30)',
  'a typed array of a length': 'new Float64Array(2 ** 27)',
  'a typed array of an array-like': 'new Uint8Array({ length: 2 ** 30 })',
  'a subclass of a typed array': 'new (class Big extends Int32Array {})(2 ** 28)',
  'Reflect.construct on the constructor of an existing buffer': 'Reflect.construct(new ArrayBuffer(8).constructor, [2 ** 30])',
  'ArrayBuffer.prototype.resize': 'new ArrayBuffer(1, { maxByteLength: 2 ** 31 }).resize(2 ** 31)',
  'SharedArrayBuffer.prototype.grow': 'new SharedArrayBuffer(1, { maxByteLength: 2 ** 31 }).grow(2 ** 31)',
  'new WebAssembly.Memory': 'new WebAssembly.Memory({ initial: 32000 })',
  'WebAssembly.Memory.prototype.grow': 'new WebAssembly.Memory({ initial: 1, maximum: 32001 }).grow(32000)',
  'new WebAssembly.Instance': `new WebAssembly.Instance(new WebAssembly.Module(${BIG_MEMORY_MODULE}))`,
  'await WebAssembly.instantiate': `await WebAssembly.instantiate(${BIG_MEMORY_MODULE})`,
}

describe('a caught allocation failure still ends the run MEMORY_LIMIT', () => {
  for (const [name, attempt] of Object.entries(attempts)) {
    it(name, async () => {
      const error = errorOf(await sandbox.run(caught(attempt)))
      expect(error.code).toBe('MEMORY_LIMIT')
    })
  }

  it('also when the guest retries in a loop', async () => {
    const code = 'for (;;) { try { new Uint8Array(2 ** 30) } catch (e) {} }'
    expect(errorOf(await sandbox.run(code)).code).toBe('MEMORY_LIMIT')
  })

  it('also in a session, which it ends like any MEMORY_LIMIT', async () => {
    const session = await sandbox.createSession({ memoryMb: MEMORY_MB })
    try {
      expect(valueOf(await session.run('const kept = 41\nkept + 1'))).toBe(42)
      expect(errorOf(await session.run(caught('new ArrayBuffer(2 ** 30)'))).code).toBe('MEMORY_LIMIT')
      expect(session.ended?.code).toBe('MEMORY_LIMIT')
    } finally {
      await session.dispose()
    }
  })
})

describe('what must keep working', () => {
  it('modest allocations through the guarded constructors and methods', async () => {
    const code = [
      'const a = new Uint8Array(4 * 1024 * 1024).fill(7)',
      'const b = new ArrayBuffer(1024, { maxByteLength: 1024 * 1024 })',
      'b.resize(512 * 1024)',
      'const m = new WebAssembly.Memory({ initial: 1, maximum: 8 })',
      'm.grow(2)',
      'const copies = [a.slice(1).length, a.map((x) => x + 1)[0], Uint16Array.from([1, 2, 3]).length, new ArrayBuffer(64).slice(8).byteLength]',
      'return [a[123], b.byteLength, m.buffer.byteLength, ...copies]',
    ].join('\n')
    expect(valueOf(await sandbox.run(code))).toEqual([7, 512 * 1024, 3 * 65536, 4 * 1024 * 1024 - 1, 8, 3, 56])
  })

  it('the guarded constructors still look and behave like the engine’s own', async () => {
    const code = [
      'const views = [Uint8Array, Float64Array, ArrayBuffer, SharedArrayBuffer]',
      'return [',
      '  views.map((C) => C.name + C.length).join(),',
      '  new Uint8Array(2).constructor === Uint8Array,',
      '  new ArrayBuffer(2) instanceof ArrayBuffer,',
      '  Object.getPrototypeOf(Uint8Array) === Object.getPrototypeOf(Int8Array),',
      '  /\\[native code\\]/.test(Function.prototype.toString.call(ArrayBuffer)),',
      ']',
    ].join('\n')
    expect(valueOf(await sandbox.run(code))).toEqual(['Uint8Array3,Float64Array3,ArrayBuffer1,SharedArrayBuffer1', true, true, true, true])
  })

  it('an ordinary RangeError from a constructor is the guest’s to catch', async () => {
    const code = "try { new ArrayBuffer(-1) } catch (e) { return e.name + ': ' + e.message }"
    expect(valueOf(await sandbox.run(code))).toBe('RangeError: Invalid array buffer length')
  })

  it('handler traps added to Object.prototype never receive the unwrapped constructor', async () => {
    const code = [
      'const seen = []',
      'for (const trap of ["apply", "get", "construct", "getPrototypeOf"]) Object.prototype[trap] = function (t) { seen.push(t) }',
      'try { ArrayBuffer() } catch (e) {}',
      'new Uint8Array(4).slice(1)',
      'ArrayBuffer.name',
      'for (const trap of ["apply", "get", "construct", "getPrototypeOf"]) delete Object.prototype[trap]',
      'return seen.length',
    ].join('\n')
    expect(valueOf(await sandbox.run(code))).toBe(0)
  })
})
