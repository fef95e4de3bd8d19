/**
 * The codec's fast path for plain JSON data (guest/plain-json.ts) must write exactly what the
 * codec's walk writes, refuse and limit exactly as it does, and run nothing the walk would not:
 * every case here is encoded by a codec with the fast path and by one without, and both must
 * agree. The values are those a fast path gets wrong first.
 */
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { createSandbox } from '../src/index.js'
import { createCodec } from '../src/guest/codec.js'
import { createPlainJson } from '../src/guest/plain-json.js'
import { capturePrimordials } from '../src/guest/primordials.js'
import { createVmBackend } from '../../conformance/test/fakes/vm-backend.js'

const walked = createCodec(capturePrimordials())
const fast = createCodec(capturePrimordials(), createPlainJson)
const plain = createPlainJson(capturePrimordials())

type Outcome = { wire: string } | { limit: string } | { threw: string }

function encodeWith(codec: typeof fast, value: unknown, budget: number): Outcome {
  try {
    return { wire: codec.encode(value, budget, 'the value') }
  } catch (error) {
    if (codec.isLimitError(error)) return { limit: error.message }
    return { threw: `${(error as Error).name}: ${(error as Error).message}` }
  }
}

/** Both codecs give the same outcome; returns whether the fast path wrote it itself. */
function expectSame(value: unknown, budget = 1e6): boolean {
  expect(encodeWith(fast, value, budget)).toStrictEqual(encodeWith(walked, value, budget))
  return typeof value === 'object' && value !== null && plain.write(value, budget) !== undefined
}

const withGetter = (object: object, key: PropertyKey, onGet: () => void) =>
  Object.defineProperty(object, key, {
    enumerable: true,
    configurable: true,
    get() {
      onGet()
      return 1
    },
  })

describe('the plain JSON fast path', () => {
  it('writes plain data itself, exactly as the walk does', () => {
    const cases: unknown[] = [
      {},
      [],
      { a: 1, b: 'two', c: [true, false, null], d: { e: 1.5e300, f: -2 } },
      JSON.parse('{"__proto__": {"polluted": true}, "x": [0]}'),
      { 2: 'a', 1: 'b', z: 'c', '-1': 'd' },
      { '\ud800': 'lone \udc00 surrogates \ud83d', é: '\u2028\u0000"\\' },
      Object.assign(Object.create(null), { a: [Object.create(null)] }),
      [[[[[]]]]],
      { a$: 1, $b: 2, nested: { v: '$' } },
    ]
    cases.forEach((value, i) => expect(expectSame(value), `case ${i}`).toBe(true))
  })

  it('leaves tagged, escaped and refused values to the walk', () => {
    const cycle: Record<string, unknown> = { a: 1 }
    cycle.self = { back: cycle }
    // eslint-disable-next-line no-sparse-arrays
    const sparse = [1, , 3]
    const boxed = Object.setPrototypeOf(new Number(5), Object.prototype) as object
    const boxedString = Object.setPrototypeOf(new String('ab'), Object.prototype) as object
    const boxedBoolean = Object.setPrototypeOf(new Boolean(false), null) as object
    const tagged = { [Symbol.toStringTag]: 'Thing', a: 1 }
    const cases: unknown[] = [
      [1, -0, 2],
      { a: NaN },
      [Infinity],
      { a: undefined },
      [undefined],
      { nested: { $: 'not a tag' } },
      { big: 1n },
      { when: new Date(0) },
      [new Map([[1, 2]])],
      sparse,
      cycle,
      { f: () => 1 },
      { s: Symbol('s') },
      boxed,
      boxedString,
      boxedBoolean,
      tagged,
      Object.setPrototypeOf(new Date(0), Object.prototype),
      Object.setPrototypeOf([1, 2], null),
      (function (_first: unknown, _second: unknown) {
        // eslint-disable-next-line prefer-rest-params
        return arguments
      })(1, 2),
      new (class Point {
        x = 1
      })(),
    ]
    cases.forEach((value, i) => expect(expectSame(value), `case ${i}`).toBe(false))
  })

  it('writes exotic objects moved onto Object.prototype by their own properties, as the walk does', () => {
    const moved = [
      new Uint8Array([1, 2]),
      new Map([[1, 2]]),
      new Set([1]),
      new Error('e'),
      Object(Symbol('s')) as object,
      Object(1n) as object,
    ]
    for (const value of moved) {
      const extra = Object.assign(Object.setPrototypeOf(value, Object.prototype) as object, { extra: [1] })
      expectSame(extra)
      expectSame(Object.setPrototypeOf(extra, null))
    }
  })

  it('runs no getter, and reads an array element only as often as the walk does', () => {
    let calls = 0
    const onGet = () => void calls++
    const callsDuring = (encode: () => unknown) => {
      calls = 0
      try {
        encode()
      } catch {
        // refused: only the calls count here
      }
      return calls
    }
    const object = withGetter({ a: 1 }, 'b', onGet)
    expect(expectSame({ list: [object] })).toBe(false)
    expect(callsDuring(() => fast.encode({ list: [object] }, 1e6, 'x'))).toBe(0)
    const setterOnly = Object.defineProperty({}, 'x', { enumerable: true, set() {} })
    expect(expectSame(setterOnly)).toBe(false)
    // The walk reads array elements with [[Get]]: its one call per encode is all there is.
    const array = withGetter([0, 0], 1, onGet)
    expect(expectSame(array)).toBe(false)
    expect(callsDuring(() => walked.encode(array, 1e6, 'x'))).toBe(1)
    expect(callsDuring(() => fast.encode(array, 1e6, 'x'))).toBe(1)
  })

  it('steps aside when the realm would make JSON.stringify call code', () => {
    const proto = Object.prototype as Record<PropertyKey, unknown>
    for (const [key, value] of [
      ['toJSON', () => 'hijacked'],
      [Symbol.toStringTag, 'Hijacked'],
    ] as const) {
      proto[key] = value
      try {
        expect(expectSame({ a: [1, { b: 2 }] })).toBe(false)
      } finally {
        delete proto[key]
      }
    }
    ;(Array.prototype as unknown as Record<string, unknown>).toJSON = () => 'hijacked'
    try {
      expect(expectSame({ a: [1] })).toBe(false)
    } finally {
      delete (Array.prototype as unknown as Record<string, unknown>).toJSON
    }
  })

  it('steps aside when Array.prototype or Object.prototype has an index (QuickJS’s stringify stack would meet it)', () => {
    for (const proto of [Array.prototype, Object.prototype]) {
      Object.defineProperty(proto, 3, { configurable: true, set() {} })
      try {
        expect(expectSame({ a: [[[[1]]]] })).toBe(false)
      } finally {
        delete (proto as unknown as Record<number, unknown>)[3]
      }
      expect(expectSame({ a: [[[[1]]]] })).toBe(true)
    }
  })

  it('reads a hole through an index accessor on Array.prototype only as the walk does', () => {
    let calls = 0
    Object.defineProperty(Array.prototype, 1, {
      configurable: true,
      get() {
        calls++
        return 'from the prototype'
      },
    })
    try {
      // eslint-disable-next-line no-sparse-arrays
      const holey = [0, , 2]
      expect(expectSame(holey)).toBe(false)
      calls = 0
      expect(fast.encode(holey, 1e6, 'x')).toBe('[0,"from the prototype",2]')
      expect(calls).toBe(1)
    } finally {
      delete (Array.prototype as unknown as Record<number, unknown>)[1]
    }
  })

  it('gives up at the walk’s depth limit, and on a cycle found at any depth', () => {
    const nest = (depth: number) => {
      let v: unknown = 0
      for (let i = 0; i < depth; i++) v = [v]
      return v
    }
    expect(expectSame(nest(1000))).toBe(true)
    expect(expectSame(nest(1001))).toBe(false)
    const deep: Record<string, unknown> = {}
    let at = deep
    for (let i = 0; i < 50; i++) at = at.next = {}
    at.back = deep
    expect(expectSame(deep)).toBe(false)
  })

  it('counts size exactly as the walk does, at every budget around the limit', () => {
    const value = { text: 'x'.repeat(100), list: [1, true, null, 'é'], nested: { k: [[]] } }
    const wire = walked.encode(value, 1e6, 'x')
    for (let budget = 0; budget <= wire.length + 80; budget++) expectSame(value, budget)
    const huge = { s: 'y'.repeat(200_000) }
    for (const budget of [200_000, 200_009, 200_010, 200_011, 200_012]) expectSame(huge, budget)
    const sparse: unknown[] = []
    sparse.length = 1e9
    expectSame(sparse, 1e6)
  })

  it('agrees with the walk on random JSON and near-JSON values', () => {
    const leaf = fc.oneof(
      fc.constantFrom(-0, NaN, Infinity, undefined, 1n, '$'),
      fc.string({ unit: 'binary' }),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
    )
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node')), fc.dictionary(fc.string(), tie('node'))),
    })).node
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), value), fc.integer({ min: 0, max: 400 }), (v, budget) => {
        expectSame(v)
        expectSame(v, budget)
      }),
      { numRuns: 400 },
    )
  })
})

describe('the fast path inside a guest', () => {
  const sandbox = createSandbox(createVmBackend())
  afterAll(() => sandbox.dispose())

  it('runs none of the guest’s getters, toJSON or toString, however it rigs its realm', async () => {
    for (const rig of [
      "Object.prototype.toJSON = function () { console.log('toJSON ran'); return 'hijacked' }",
      "Array.prototype.toJSON = function () { console.log('toJSON ran'); return 'hijacked' }",
      "Object.defineProperty(Object.prototype, Symbol.toStringTag, { get() { console.log('tag read'); return 'X' } })",
      "Object.defineProperty(Array.prototype, 1, { get() { console.log('hole read'); return 'h' } })",
      "for (let i = 0; i < 4; i++) Object.defineProperty(Array.prototype, i, { set() { console.log('set ' + i) } })",
      "for (let i = 0; i < 4; i++) Object.defineProperty(Object.prototype, i, { get() { console.log('get ' + i) }, set() { console.log('set ' + i) } })",
    ]) {
      const r = await sandbox.run(`${rig}\nconst data = { a: [1, 2], b: { c: 'd' }, s: new String('x') }\nreturn [data, [3, 4]]`)
      expect(r.ok && r.value, rig).toStrictEqual([{ a: [1, 2], b: { c: 'd' }, s: { 0: 'x' } }, [3, 4]])
      expect(r.logs, rig).toStrictEqual([])
    }
  })

  it('keeps -0, holes, getters and __proto__ keys as the value model says', async () => {
    const r = await sandbox.run(`
      const o = JSON.parse('{"__proto__": [1, -0]}')
      o.list = [1, , -0]
      return o
    `)
    expect(r.ok).toBe(true)
    if (r.ok) {
      const value = r.value as Record<string, unknown>
      expect(Object.keys(value)).toEqual(['__proto__', 'list'])
      expect(Object.is((value.__proto__ as number[])[1], -0)).toBe(true)
      expect(value.list).toStrictEqual([1, undefined, -0])
    }
    const getter = await sandbox.run('({ get g() { return 1 } })')
    expect(getter.ok === false && getter.error.message).toMatch(/getter or setter property \(at \$\.g\)/)
  })
})

describe('decodeTrusted (a host wire entering a guest: plain JSON text skips the walk)', () => {
  const codec = createCodec(capturePrimordials(), createPlainJson)
  const roundTrip = (value: unknown) => {
    const wire = codec.encode(value, 1e7, 'the value')
    expect(codec.decodeTrusted(wire)).toStrictEqual(codec.decode(wire))
  }

  it('decodes what decode does, tags, escapes and look-alike strings included', () => {
    const cases: unknown[] = [
      { a: [1, 'two', null, true], b: { c: -2.5 } },
      { s: '{"$":"date","v":0}', t: '{"$"', nested: ['{\\"$\\"'] },
      { $: 'an own $ key is escaped', v: 1 },
      { when: new Date(0), n: [undefined, NaN, -0, 10n], m: new Map([[1, new Set(['x'])]]) },
      [new Uint8Array([1, 2]), { deep: [[[{ $: 1 }]]] }],
      'plain string',
      42,
    ]
    for (const value of cases) roundTrip(value)
  })

  it('agrees with decode on random values', () => {
    const leaf = fc.oneof(
      fc.constantFrom(-0, NaN, Infinity, undefined, 1n, '$', '{"$"'),
      fc.string({ unit: 'binary' }),
      fc.double(),
      fc.date({ noInvalidDate: true }),
      fc.constant(null),
    )
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node')), fc.dictionary(fc.string(), tie('node'))),
    })).node
    fc.assert(fc.property(fc.oneof(fc.jsonValue(), value), roundTrip), { numRuns: 400 })
  })
})
