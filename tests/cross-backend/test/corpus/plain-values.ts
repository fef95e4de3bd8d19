import type { Program } from './program.js'

// Values at the edge of plain JSON data, where the codec's fast path (JSON.stringify after a
// check) must step aside or write exactly what the walk writes, in every engine.
export const plainValues: Program[] = [
  {
    name: 'plain values: -0 inside an array, NaN and undefined in a record',
    code: 'return [[1, -0, 2], { n: NaN, u: undefined, i: -Infinity }]',
    expect: { value: [[1, -0, 2], { n: NaN, u: undefined, i: -Infinity }] },
  },
  {
    name: 'plain values: an own __proto__ key crosses as data',
    code: 'const o = JSON.parse(\'{"__proto__":{"x":1},"y":[2]}\')\nreturn [Object.keys(o), o]',
    expect: { value: [['__proto__', 'y'], JSON.parse('{"__proto__":{"x":1},"y":[2]}')] },
  },
  {
    name: 'plain values: holes and a longer length come back as undefined',
    code: 'const a = [1, , 3]\na.length = 5\nreturn a',
    expect: { value: [1, undefined, 3, undefined, undefined] },
  },
  {
    name: 'plain values: a getter deep in records is refused with its path, never run',
    code: "const g = Object.defineProperty({}, 'g', { enumerable: true, get() { console.log('ran'); return 1 } })\nreturn { list: [{ ok: 1 }, g] }",
    expect: {
      logs: [],
      error: {
        code: 'RUNTIME_ERROR',
        name: 'TypeError',
        message: 'a getter or setter property (at $.list[1].g) cannot leave or enter the sandbox: only data can (the result)',
      },
    },
  },
  {
    name: 'plain values: a cycle is refused with its path',
    code: 'const o = { a: [{}] }\no.a[0].back = o\nreturn o',
    expect: {
      error: {
        code: 'RUNTIME_ERROR',
        name: 'TypeError',
        message: 'a circular reference (at $.a[0].back) cannot leave or enter the sandbox: only data can (the result)',
      },
    },
  },
  {
    name: 'plain values: a rigged toJSON, toStringTag and index getter change nothing and run nothing',
    code: [
      "Object.prototype.toJSON = function () { console.log('toJSON'); return 'rigged' }",
      "Object.defineProperty(Object.prototype, Symbol.toStringTag, { get() { console.log('tag'); return 'X' } })",
      "Object.defineProperty(Array.prototype, 7, { get() { console.log('index'); return 'h' } })",
      "return { list: [1, 'two', [null]], n: { m: true } }",
    ].join('\n'),
    expect: { value: { list: [1, 'two', [null]], n: { m: true } }, logs: [] },
  },
  {
    name: 'plain values: globals with $ keys, -0 and nested records round-trip',
    code: 'return input',
    globals: { input: { $: 'x', list: [{ $: 1, v: [] }], n: -0, deep: { a: [[{ b: 'c' }]] } } },
    expect: { value: { $: 'x', list: [{ $: 1, v: [] }], n: -0, deep: { a: [[{ b: 'c' }]] } } },
  },
  {
    name: 'plain values: lone surrogates, line separators and escapes cross unchanged',
    code: "return [String.fromCharCode(0xd800), String.fromCharCode(0xdc00, 0x61), '\\u2028', '\\u0000\"\\\\']",
    expect: { value: ['\ud800', '\udc00a', '\u2028', '\u0000"\\'] },
  },
  {
    name: 'plain values: a boxed number moved onto Object.prototype crosses as its own properties',
    code: 'const n = Object.setPrototypeOf(new Number(5), Object.prototype)\nn.k = 1\nreturn [n, Object.setPrototypeOf(new Boolean(true), null)]',
    expect: { value: [{ k: 1 }, {}] },
  },
]
