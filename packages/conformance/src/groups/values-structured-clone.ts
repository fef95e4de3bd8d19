import { runOk } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'

/** Each check's program returns a list of plain facts about what structuredClone gave. */
function cloneCheck(name: string, code: string, expected: unknown): ConformanceCheck {
  return {
    group: 'values',
    name: `structuredClone in the guest: ${name}`,
    async run({ sandbox }) {
      expectSameValue(await runOk(sandbox, code), expected, 'what the program saw')
    },
  }
}

export const structuredCloneChecks: readonly ConformanceCheck[] = [
  cloneCheck(
    'cycles, Maps, Sets, Dates, RegExps, sparse arrays, boxed primitives, bigints and errors',
    [
      "const m = new Map([[{ k: 1 }, new Set([1, 'two'])]])",
      "const o = { n: 1, big: 10n, date: new Date(5), re: /a+/gi, arr: [1, , 3], m, err: new RangeError('r', { cause: 'why' }), boxed: Object('s') }",
      'o.re.lastIndex = 2',
      'o.self = o',
      'const c = structuredClone(o)',
      'const [key, set] = [...c.m][0]',
      'return [',
      '  c !== o, c.self === c, c.n, c.big === 10n,',
      '  c.date instanceof Date && c.date !== o.date && c.date.getTime(),',
      '  c.re instanceof RegExp && c.re !== o.re, c.re.source, c.re.flags, c.re.lastIndex,',
      '  c.arr.length, 1 in c.arr, c.arr[2],',
      '  c.m instanceof Map && c.m !== m, key.k, set instanceof Set, [...set],',
      '  c.err instanceof RangeError, c.err.message, c.err.cause,',
      '  typeof c.boxed, c.boxed instanceof String && String(c.boxed),',
      ']',
    ].join('\n'),
    [true, true, 1, true, 5, true, 'a+', 'gi', 0, 3, false, 3, true, 1, true, [1, 'two'], true, 'r', 'why', 'object', 's'],
  ),
  cloneCheck(
    'buffers and views: a copy of the buffer, views of one buffer stay views of one copy',
    [
      'const buffer = new ArrayBuffer(8)',
      'const bytes = new Uint8Array(buffer, 2, 4)',
      'bytes[0] = 7',
      'const view = new DataView(buffer)',
      'const c = structuredClone({ bytes, view, buffer })',
      'c.bytes[1] = 9',
      'return [c.bytes instanceof Uint8Array, c.bytes.byteOffset, c.bytes.length, c.bytes[0], c.bytes.buffer === c.view.buffer, c.buffer === c.view.buffer, c.buffer !== buffer, new Uint8Array(buffer)[3], c.view.getUint8(3)]',
    ].join('\n'),
    [true, 2, 4, 7, true, true, true, 0, 9],
  ),
  cloneCheck(
    'functions, symbols, WeakMaps, Promises and objects holding them throw a DataCloneError; class instances lose their class',
    [
      'const seen = []',
      "for (const v of [() => 1, Symbol('s'), new WeakMap(), Promise.resolve(), { f() {} }]) {",
      "  try { structuredClone(v); seen.push('cloned') } catch (e) { seen.push(e.name + ':' + (e instanceof Error)) }",
      '}',
      'class Point { constructor() { this.x = 1 } get double() { return 2 } }',
      'const p = structuredClone(new Point())',
      'return [seen, Object.getPrototypeOf(p) === Object.prototype, p.x, p.double]',
    ].join('\n'),
    [
      ['DataCloneError:true', 'DataCloneError:true', 'DataCloneError:true', 'DataCloneError:true', 'DataCloneError:true'],
      true,
      1,
      undefined,
    ],
  ),
  cloneCheck(
    'works the same after the guest replaced Map, Set and Array methods',
    [
      "const input = { m: new Map([[1, 2]]), s: new Set([3]), a: ['x'] }",
      "Map.prototype.set = () => { throw new Error('poisoned') }",
      "Set.prototype.add = () => { throw new Error('poisoned') }",
      "Array.prototype.push = () => { throw new Error('poisoned') }",
      "Object.defineProperty(Array.prototype, 0, { set() { throw new Error('poisoned') }, configurable: true })",
      'const c = structuredClone(input)',
      'return [c.m.get(1), c.s.has(3), c.a.length, Object.getOwnPropertyDescriptor(c.a, 0).value, c.m !== input.m]',
    ].join('\n'),
    [2, true, 1, 'x', true],
  ),
]
