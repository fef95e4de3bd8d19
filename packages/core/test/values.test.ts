import { afterAll, describe, expect, it } from 'vitest'
import { createSandbox } from '../src/index.js'
import { decodeValue, encodeValue } from '../src/backend/index.js'
import { createVmBackend } from '../../conformance/test/fakes/vm-backend.js'

const sandbox = createSandbox(createVmBackend())
afterAll(() => sandbox.dispose())

const samples: Record<string, unknown> = {
  undef: undefined,
  nul: null,
  num: 1.5,
  nan: NaN,
  inf: -Infinity,
  negZero: -0,
  big: 12345678901234567890n,
  date: new Date(0),
  badDate: new Date(NaN),
  list: [1, 'two', [3]],
  nested: { a: { b: [new Map([['k', new Set([1])]])] } },
  bytes: new Uint8Array([1, 2, 255]),
  floats: new Float64Array([0.5, NaN]),
  buffer: new Uint8Array([9, 8]).buffer,
  error: new RangeError('out'),
  dollar: { $: 'not a tag', v: 1 },
  proto: JSON.parse('{"__proto__": {"polluted": true}}'),
}

describe('value codec', () => {
  it('round-trips every supported kind on the host', () => {
    for (const [name, value] of Object.entries(samples)) {
      const back = decodeValue(encodeValue(value, 1e6, name))
      expect(back, name).toStrictEqual(value)
    }
  })

  it('keeps __proto__ as data, never as a prototype', () => {
    const back = decodeValue(encodeValue(samples.proto, 1e6, 'x')) as Record<string, unknown>
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype)
    expect(Object.keys(back)).toEqual(['__proto__'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('refuses what cannot cross, naming the path', () => {
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    expect(() => encodeValue({ a: [() => 1] }, 1e6, 'x')).toThrow(/function \(at \$\.a\[0\]\)/)
    expect(() => encodeValue(cycle, 1e6, 'x')).toThrow(/circular/)
    expect(() =>
      encodeValue(
        {
          get g() {
            return 1
          },
        },
        1e6,
        'x',
      ),
    ).toThrow(/getter/)
    expect(() => encodeValue(Symbol('s'), 1e6, 'x')).toThrow(/symbol/)
    expect(() => encodeValue(/re/, 1e6, 'x')).toThrow(/regular expression/)
    expect(() => encodeValue(Promise.resolve(), 1e6, 'x')).toThrow(/Promise/)
  })

  it('rejects malformed wire text', () => {
    expect(() => decodeValue('{"$":"nope"}')).toThrow(/malformed/)
    expect(() => decodeValue('{"$":"bigint","v":"1".repeat(200000)}')).toThrow()
  })

  it('round-trips values through the guest (globals in, result out)', async () => {
    const r = await sandbox.run('input', { globals: { input: samples } })
    expect(r.ok).toBe(true)
    if (r.ok) expect(r.value).toStrictEqual(samples)
  })

  it('copies globals: guest mutation never reaches the host', async () => {
    const data = { list: [1] }
    const r = await sandbox.run('data.list.push(2); data.list.length', { globals: { data } })
    expect(r.ok && r.value).toBe(2)
    expect(data.list).toEqual([1])
  })

  it('turns a function in the result into a TypeError', async () => {
    const r = await sandbox.run('({ f() {} })')
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error).toMatchObject({ code: 'RUNTIME_ERROR', name: 'TypeError' })
  })

  it('stops a huge sparse array early with OUTPUT_LIMIT', async () => {
    const r = await sandbox.run('const a = []; a.length = 1e9; a')
    expect(r.ok === false && r.error.code).toBe('OUTPUT_LIMIT')
  })
})
