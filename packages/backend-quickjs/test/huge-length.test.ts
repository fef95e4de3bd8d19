import { createSandbox } from '@cordon/core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createQuickJSBackend } from '../src/index.js'

/**
 * QuickJS walks `length` in C without polling its interrupt handler; src/length-guard.ts moves
 * long walks to interruptible JavaScript. Deadline: as the conformance suite, deadline + 500 ms.
 */
const sandbox = createSandbox(createQuickJSBackend())
afterAll(() => sandbox.dispose())
// The first run loads and compiles the engine: not part of any deadline below.
beforeAll(() => sandbox.run('return 1'))

const TIMEOUT_MS = 300
const SLACK_MS = 500
const SPARSE = 'const a = []\na.length = 2 ** 32 - 1\n'
const LIKE = 'const a = { length: 2 ** 40 }\n'

/** One program per wrapped built-in; each would hold the host's thread for seconds to minutes. */
const HUGE: Record<string, string> = {
  includes: `${SPARSE}return a.includes(1)`,
  indexOf: `${SPARSE}return a.indexOf(1)`,
  lastIndexOf: `${SPARSE}return a.lastIndexOf(1)`,
  join: `${SPARSE}return a.join('').length`,
  'join with a separator': "return new Array(2 ** 30).join('xy').length",
  toString: `${SPARSE}return a.toString().length`,
  toLocaleString: `${SPARSE}return a.toLocaleString().length`,
  reverse: `${SPARSE}a.reverse()\nreturn a.length`,
  fill: `${SPARSE}a.fill(1)\nreturn a.length`,
  copyWithin: `${SPARSE}a.copyWithin(0, 1)\nreturn a.length`,
  slice: `${SPARSE}return a.slice().length`,
  splice: `${SPARSE}return a.splice(0, 1).length`,
  shift: `${SPARSE}return a.shift()`,
  unshift: `${SPARSE}return a.unshift(1)`,
  concat: `${SPARSE}return [].concat(a).length`,
  flat: `${SPARSE}return [a].flat().length`,
  flatMap: `${SPARSE}return [1].flatMap(() => a).length`,
  sort: `${SPARSE}a[5] = 1\nreturn a.sort().length`,
  'sort of a dense array': "const a = 'ab'.repeat(2 ** 16).split('')\nreturn a.sort().length",
  'sort with a C comparator': `${SPARSE}a[5] = 1\nreturn a.sort(Math.max).length`,
  toSorted: `${SPARSE}return a.toSorted().length`,
  toReversed: `${SPARSE}return a.toReversed().length`,
  toSpliced: `${SPARSE}return a.toSpliced(0, 1).length`,
  with: `${SPARSE}return a.with(0, 1).length`,
  forEach: `${SPARSE}a.forEach(() => {})\nreturn 0`,
  map: `${SPARSE}return a.map((x) => x).length`,
  filter: `${SPARSE}return a.filter((x) => x).length`,
  some: `${SPARSE}return a.some((x) => x)`,
  every: `${SPARSE}return a.every((x) => x)`,
  reduce: `${SPARSE}return a.reduce((x) => x, 0)`,
  reduceRight: `${SPARSE}return a.reduceRight((x) => x, 0)`,
  'indexOf on an array-like': `${LIKE}return Array.prototype.indexOf.call(a, 1)`,
  'join on an array-like': `${LIKE}return Array.prototype.join.call(a, '').length`,
  'includes on a string': "return Array.prototype.includes.call('x'.repeat(2 ** 22), 'y')",
  'a Proxy of an array': `${SPARSE}return new Proxy(a, {}).includes(1)`,
  'Array.from an array': `${SPARSE}return Array.from(a).length`,
  'Array.from an array-like': 'return Array.from({ length: 2 ** 32 - 1 }).length',
  'TypedArray.from': 'return Uint8Array.from({ length: 2 ** 25 }).length',
  'TypedArray join': "return new Uint8Array(2 ** 25).join('').length",
  'TypedArray toLocaleString': 'return new Uint8Array(2 ** 25).toLocaleString().length',
}

describe('a built-in walking a huge length ends at the deadline', () => {
  for (const [name, program] of Object.entries(HUGE)) {
    test(name, async () => {
      const started = performance.now()
      const result = await sandbox.run(program, { timeoutMs: TIMEOUT_MS })
      const elapsed = performance.now() - started
      expect(result).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } })
      expect(elapsed).toBeLessThan(TIMEOUT_MS + SLACK_MS)
    })
  }
})

/**
 * Each program builds an input, calls built-ins and returns `show(...)`, a JSON view that keeps
 * holes, undefined and the array's own keys. The same text runs in Node and in the sandbox.
 */
const SHOW = [
  'const show = (v) => JSON.stringify(v, (k, x) => {',
  "  if (x === undefined) return '<undefined>'",
  "  if (typeof x === 'number' && !Number.isFinite(x)) return String(x)",
  "  if (Array.isArray(x) || (x && typeof x === 'object' && 'length' in x)) {",
  '    const own = {}',
  '    for (const key of Object.keys(x)) own[key] = x[key]',
  "    return { '<length>': x.length, ...own }",
  '  }',
  '  return x',
  '})',
  // A long view is compared by its length, a hash and its ends, so a failure stays readable.
  'const digest = (text) => {',
  '  if (text.length <= 300) return text',
  '  let h = 2166136261',
  '  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0',
  "  return text.length + ' ' + h.toString(16) + ' ' + text.slice(0, 100) + ' … ' + text.slice(-100)",
  '}',
].join('\n')

/** Inputs by name: small (the originals run), over the limit and sparse, array-likes (always JavaScript). */
const INPUTS: Record<string, string> = {
  small: "[3, 1, undefined, 'b', 2, , NaN, 10, 'a', 1]",
  sparse: "(() => { const a = [5, , 1]; a[70_000] = 'z'; a[70_001] = 1; a[75_000] = NaN; a.length = 80_000; return a })()",
  dense: 'Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 1000)',
  arrayLike: "({ length: 6, 0: 'x', 2: 2, 4: 'x', 5: undefined })",
}

const CALLS: Record<string, string> = {
  includes: "[a.includes(1), a.includes(NaN), a.includes(undefined), a.includes('z', -5), a.includes(5, 1)]",
  indexOf: "[a.indexOf(1), a.indexOf(NaN), a.indexOf('z', -20), a.indexOf(5, -Infinity), a.indexOf(1, 3)]",
  lastIndexOf: "[a.lastIndexOf(1), a.lastIndexOf(1, -3), a.lastIndexOf('x'), a.lastIndexOf(5, 0)]",
  join: "[a.join().length, a.join('').slice(0, 40), a.join(undefined).slice(-20)]",
  toString: '[a.toString().length]',
  toLocaleString: '[a.toLocaleString().length]',
  reverse: '[a.reverse()]',
  fill: "[a.fill('f', -3, -1), a.fill(0, 2, 4)]",
  copyWithin: '[a.copyWithin(1, 0, 3), a.copyWithin(0, -4)]',
  slice: '[a.slice(1, 4), a.slice(-3), a.slice(2, -2).length]',
  splice: "[a.splice(1, 2, 'i', 'j', 'k'), a, a.splice(-2), a, a.splice(0, 0, 7), a]",
  shift: '[a.shift(), a]',
  unshift: "[a.unshift('u', 'v'), a]",
  concat: "[a.concat([9, , 8], 'c', { length: 1, 0: 'o' }).length, [0].concat(a).slice(0, 5)]",
  flat: '[[a, [a, [1]]].flat().length, [[1, [2, [3, , 4]]]].flat(Infinity)]',
  flatMap: '[a.flatMap((x, i) => (i % 3 ? [x, [x]] : x)).length]',
  sort: "[a.sort(), Array.prototype.slice.call(a).sort((x, y) => (typeof x === 'number' && typeof y === 'number' ? y - x : 0))]",
  toSorted: '[a.toSorted().slice(0, 10), a.toSorted((x, y) => (x > y ? 1 : -1)).length]',
  toReversed: '[a.toReversed().slice(0, 5), a.toReversed().length]',
  toSpliced: "[a.toSpliced(1, 2, 'n').slice(0, 6), a.toSpliced(-1).length]",
  with: "[a.with(1, 'w').slice(0, 4), a.with(-1, 'last').slice(-2)]",
  forEach: '[(() => { let n = 0; a.forEach((x, i) => { n += i }); return n })()]',
  map: '[a.map((x, i) => i).length, a.map(String).slice(0, 4)]',
  filter: "[a.filter((x) => typeof x === 'number').length]",
  some: "[a.some((x) => x === 'z'), a.some((x) => x === 'nope')]",
  every: "[a.every((x) => x !== 'q'), a.every((x) => typeof x === 'number')]",
  reduce: '[a.reduce((s, x, i) => s + i, 0), a.reduce((s, x) => s + 1)]',
  reduceRight: "[a.reduceRight((s, x, i) => s + i, 0), a.reduceRight((s, x) => s + '|' + x)]",
  'Array.from': '[Array.from(a).length, Array.from(a, (x, i) => i).slice(-3)]',
  'TypedArray.from': '[Float64Array.from(a).length, Array.from(Int16Array.from(a, (x, i) => i)).slice(-2)]',
}

describe('results match Node for ordinary, moderately large sparse and array-like inputs', () => {
  for (const [input, source] of Object.entries(INPUTS)) {
    for (const [name, call] of Object.entries(CALLS)) {
      const generic = input === 'arrayLike' ? call.replace(/\ba\.(\w+)\(/g, 'Array.prototype.$1.call(a, ') : call
      const program = `${SHOW}\nconst a = ${source}\nreturn digest(show(${generic}))`
      test(`${name} on ${input}`, async () => {
        const expected = run(program)
        const result = await sandbox.run(program, { timeoutMs: 20_000 })
        expect(result).toMatchObject({ ok: true, value: expected })
      })
    }
  }

  test('typed arrays over the limit join like Node', async () => {
    // (toLocaleString is left out: Node formats numbers by locale, QuickJS does not.)
    const program =
      "const t = new Uint16Array(70_000).map((_, i) => i)\nreturn [t.join('-').length, t.join().slice(-12), t.join().slice(0, 12), t.toLocaleString().length > 0]"
    const result = await sandbox.run(program, { timeoutMs: 20_000 })
    expect(result).toMatchObject({ ok: true, value: run(program) })
  })
})

describe('the wrappers', () => {
  test('keep names, lengths and native source, and survive a guest that replaced Reflect and call', async () => {
    const program = [
      'const m = Array.prototype.includes',
      "const shape = [m.name, m.length, Function.prototype.toString.call(m).includes('[native code]'), 'prototype' in m]",
      'Reflect.apply = () => "hijacked"',
      'Function.prototype.call = () => "hijacked"',
      'Function.prototype.apply = () => "hijacked"',
      'Math.floor = () => 0',
      'Object.defineProperty = () => { throw new Error("hijacked") }',
      'Object.prototype.get = () => "hijacked"',
      'const a = [1, 2]',
      'a[70_000] = 3',
      'return [...shape, a.includes(3), a.indexOf(3), a.slice(69_999).length, a.toSorted()[2]]',
    ].join('\n')
    const result = await sandbox.run(program, { timeoutMs: 20_000 })
    expect(result).toMatchObject({ ok: true, value: ['includes', 1, true, false, true, 70_000, 2, 3] })
  })

  test('read a length once, even from a getter or a Proxy that grows it after the first read', async () => {
    const program = [
      'let reads = 0',
      'const grow = () => (reads++ === 0 ? 1 : 2 ** 32 - 1)',
      'const p = new Proxy([], { get: (t, k) => (k === "length" ? grow() : t[k]) })',
      'const r = Proxy.revocable([], { get: (t, k) => (k === "length" ? grow() : t[k]) })',
      'const like = { get length() { return grow() } }',
      'return [p.indexOf(1), (reads = 0, r.proxy.includes(1)), (reads = 0, Array.prototype.join.call(like)), new Proxy([1, 2], {}).includes(2)]',
    ].join('\n')
    const result = await sandbox.run(program, { timeoutMs: 5_000 })
    expect(result).toMatchObject({ ok: true, value: [-1, false, '', true] })
    expect(run(program)).toEqual([-1, false, '', true])
  })
})

function run(program: string): unknown {
  // The same program on the host's own V8, as the reference result.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  return new Function(program)() as unknown
}
