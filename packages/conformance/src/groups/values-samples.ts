/**
 * The value model as data. Each sample is one value written twice: as guest source and
 * as a host value. A value sent by one side must arrive as the other side's version.
 */
export interface CrossingSample {
  readonly name: string
  /** Guest expression producing the value the guest sends. */
  readonly guest: string
  /** The value the host sends. */
  host(): unknown
  /** Guest expression for what the guest must receive (default: `guest`). */
  readonly guestExpected?: string
  /** What the host must receive (default: `host()`). */
  hostExpected?(): unknown
}

/** A value that cannot cross: TypeError in the guest, INVALID_OPTIONS as a global. */
export interface RefusedSample {
  readonly name: string
  readonly guest: string
  host(): unknown
}

function withProto(json: string): unknown {
  return JSON.parse(json) as unknown
}

class Point {
  x = 1
  y = [2]
  get z(): number {
    return 3
  }
}

function nested(): unknown {
  return {
    when: new Date(5),
    tags: new Set(['x', 'y']),
    index: new Map<string, unknown>([['k', [new Date(0), new Set([1]), { deep: new Map([[1, -0]]) }]]]),
    list: [new Map(), -0, 10n, undefined],
  }
}

const NESTED_GUEST = `({
  when: new Date(5),
  tags: new Set(['x', 'y']),
  index: new Map([['k', [new Date(0), new Set([1]), { deep: new Map([[1, -0]]) }]]]),
  list: [new Map(), -0, 10n, undefined],
})`

function namedError(): Error {
  const error = new Error('custom')
  error.name = 'MyError'
  return error
}

export const CROSSING_SAMPLES: readonly CrossingSample[] = [
  { name: 'undefined', guest: 'undefined', host: () => undefined },
  { name: 'null', guest: 'null', host: () => null },
  { name: 'true', guest: 'true', host: () => true },
  { name: 'false', guest: 'false', host: () => false },
  { name: 'a string', guest: '"hello"', host: () => 'hello' },
  { name: 'the empty string', guest: '""', host: () => '' },
  // An engine bridge that reads or writes C strings stops at the first NUL.
  { name: 'a string with NUL characters', guest: '"\\u0000a\\u0000b\\u0000"', host: () => '\u0000a\u0000b\u0000' },
  { name: 'a unicode string', guest: '"héllo wörld ✓ 日本語 😀 \\n\\t\\"quoted\\""', host: () => 'héllo wörld ✓ 日本語 😀 \n\t"quoted"' },
  { name: 'an integer', guest: '42', host: () => 42 },
  { name: 'a negative fraction', guest: '-3.25', host: () => -3.25 },
  { name: 'the largest safe integer', guest: 'Number.MAX_SAFE_INTEGER', host: () => Number.MAX_SAFE_INTEGER },
  { name: 'the smallest positive number', guest: '5e-324', host: () => 5e-324 },
  { name: 'NaN', guest: 'NaN', host: () => NaN },
  { name: 'Infinity', guest: 'Infinity', host: () => Infinity },
  { name: '-Infinity', guest: '-Infinity', host: () => -Infinity },
  { name: '-0', guest: '-0', host: () => -0 },
  { name: 'a small BigInt', guest: '123n', host: () => 123n },
  { name: 'a huge negative BigInt', guest: '-(2n ** 100n)', host: () => -(2n ** 100n) },
  { name: 'a Date', guest: 'new Date(1700000000123)', host: () => new Date(1700000000123) },
  { name: 'an invalid Date', guest: 'new Date(NaN)', host: () => new Date(NaN) },
  { name: 'an array of primitives', guest: '[1, "a", null, true]', host: () => [1, 'a', null, true] },
  // A hole arrives as undefined: a real element, so the two sides agree on `length` and indexing.
  {
    name: 'an array with holes',
    guest: '[1, , 3]',
    // eslint-disable-next-line no-sparse-arrays -- the hole is the sample
    host: () => [1, , 3],
    guestExpected: '[1, undefined, 3]',
    hostExpected: () => [1, undefined, 3],
  },
  { name: 'nested arrays', guest: '[[], [[1]], [[[2, [3]]]]]', host: () => [[], [[1]], [[[2, [3]]]]] },
  { name: 'a plain object', guest: '({ a: 1, b: { c: [1, 2], d: "x" } })', host: () => ({ a: 1, b: { c: [1, 2], d: 'x' } }) },
  { name: 'the empty object', guest: '({})', host: () => ({}) },
  {
    name: 'an own "__proto__" key',
    guest: 'JSON.parse(\'{"__proto__": {"x": 1}, "y": 2}\')',
    host: () => withProto('{"__proto__": {"x": 1}, "y": 2}'),
  },
  { name: 'keys named "$"', guest: '({ $: 1, $ref: "x", v: 2 })', host: () => ({ $: 1, $ref: 'x', v: 2 }) },
  { name: 'an object that looks like a wire tag', guest: '({ $: "date", v: 0 })', host: () => ({ $: 'date', v: 0 }) },
  {
    name: 'a Map',
    guest: 'new Map([["a", 1], [2, "b"], [null, [true]]])',
    host: () =>
      new Map<unknown, unknown>([
        ['a', 1],
        [2, 'b'],
        [null, [true]],
      ]),
  },
  { name: 'a Set', guest: 'new Set([1, "a", 2n, null])', host: () => new Set<unknown>([1, 'a', 2n, null]) },
  { name: 'a Uint8Array', guest: 'new Uint8Array([0, 1, 255])', host: () => new Uint8Array([0, 1, 255]) },
  { name: 'a Float64Array', guest: 'new Float64Array([1.5, -0, NaN, Infinity])', host: () => new Float64Array([1.5, -0, NaN, Infinity]) },
  { name: 'an Int32Array', guest: 'new Int32Array([-1, 2, 2147483647])', host: () => new Int32Array([-1, 2, 2147483647]) },
  { name: 'an ArrayBuffer', guest: 'new Uint8Array([1, 2, 255]).buffer', host: () => new Uint8Array([1, 2, 255]).buffer },
  { name: 'an Error', guest: 'new Error("boom")', host: () => new Error('boom') },
  { name: 'a TypeError', guest: 'new TypeError("bad input")', host: () => new TypeError('bad input') },
  {
    name: 'an Error with a custom name',
    guest: '(() => { const e = new Error("custom"); e.name = "MyError"; return e })()',
    host: namedError,
  },
  {
    name: 'a class instance (as a plain object)',
    guest: '(() => { class Point { constructor() { this.x = 1; this.y = [2] } get z() { return 3 } } return new Point() })()',
    host: () => new Point(),
    guestExpected: '({ x: 1, y: [2] })',
    hostExpected: () => ({ x: 1, y: [2] }),
  },
  {
    name: 'symbol-keyed properties (skipped)',
    guest: '({ a: 1, [Symbol("s")]: 2 })',
    host: () => ({ a: 1, [Symbol('s')]: 2 }),
    guestExpected: '({ a: 1 })',
    hostExpected: () => ({ a: 1 }),
  },
  {
    name: 'non-enumerable properties (skipped)',
    guest: 'Object.defineProperty({ a: 1 }, "hidden", { value: 2, enumerable: false })',
    host: () => Object.defineProperty({ a: 1 }, 'hidden', { value: 2, enumerable: false }),
    guestExpected: '({ a: 1 })',
    hostExpected: () => ({ a: 1 }),
  },
  { name: 'Map, Set and Date nested in objects and arrays', guest: NESTED_GUEST, host: nested },
]

function cycle(): unknown {
  const object: Record<string, unknown> = { a: 1 }
  object.self = { back: object }
  return object
}

function arrayCycle(): unknown {
  const array: unknown[] = [1]
  array.push([array])
  return array
}

export const REFUSED_SAMPLES: readonly RefusedSample[] = [
  { name: 'a function', guest: '(() => 1)', host: () => () => 1 },
  { name: 'a method in an object', guest: '({ a: 1, f() { return 1 } })', host: () => ({ a: 1, f: () => 1 }) },
  { name: 'an object with toJSON', guest: '({ toJSON() { return "x" } })', host: () => ({ toJSON: () => 'x' }) },
  { name: 'a symbol', guest: 'Symbol("s")', host: () => Symbol('s') },
  { name: 'a Promise nested in an object', guest: '({ p: Promise.resolve(1) })', host: () => ({ p: Promise.resolve(1) }) },
  { name: 'a WeakMap', guest: '({ w: new WeakMap() })', host: () => ({ w: new WeakMap() }) },
  { name: 'a WeakSet', guest: '[new WeakSet()]', host: () => [new WeakSet()] },
  { name: 'a RegExp', guest: '/a+/g', host: () => /a+/g },
  { name: 'an object cycle', guest: '(() => { const o = { a: 1 }; o.self = { back: o }; return o })()', host: cycle },
  { name: 'an array cycle', guest: '(() => { const a = [1]; a.push([a]); return a })()', host: arrayCycle },
  {
    name: 'a getter',
    guest: '({ a: 1, get x() { return 1 } })',
    host: () => ({
      a: 1,
      get x() {
        return 1
      },
    }),
  },
  { name: 'a setter', guest: '({ set x(v) {} })', host: () => ({ set x(_v: unknown) {} }) },
]
