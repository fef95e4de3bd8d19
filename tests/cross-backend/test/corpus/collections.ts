import type { Program } from './program.js'

export const collections: Program[] = [
  {
    name: 'collections: a Map crosses as a Map',
    code: "new Map([['a', 1], [2, 'two'], [null, [true]]])",
    expect: {
      value: new Map<unknown, unknown>([
        ['a', 1],
        [2, 'two'],
        [null, [true]],
      ]),
    },
  },
  { name: 'collections: a Set crosses as a Set', code: "new Set([3, 'x', 3, undefined])", expect: { value: new Set([3, 'x', undefined]) } },
  {
    name: 'collections: count with a Map',
    code: "const words = 'b a c a b a'.split(' ')\nconst m = new Map()\nfor (const w of words) m.set(w, (m.get(w) ?? 0) + 1)\n;[...m].sort((x, y) => y[1] - x[1])",
    expect: {
      value: [
        ['a', 3],
        ['b', 2],
        ['c', 1],
      ],
    },
  },
  {
    name: 'collections: Map with object keys',
    code: 'const k1 = { id: 1 }, k2 = { id: 2 }\nconst m = new Map([[k1, "one"], [k2, "two"]])\n;[m.get(k1), m.get({ id: 1 }), m.size, m.has(k2)]',
    expect: { value: ['one', undefined, 2, true] },
  },
  {
    name: 'collections: set operations by hand',
    code: 'const a = new Set([1, 2, 3, 4]), b = new Set([3, 4, 5])\n;({ union: [...new Set([...a, ...b])], inter: [...a].filter((x) => b.has(x)), diff: [...a].filter((x) => !b.has(x)) })',
    expect: { value: { union: [1, 2, 3, 4, 5], inter: [3, 4], diff: [1, 2] } },
  },
  {
    name: 'collections: Object.entries, fromEntries, groupBy fallbacks',
    code: 'const prices = { apple: 1.2, pear: 0.8, fig: 3 }\nObject.fromEntries(Object.entries(prices).filter(([, p]) => p >= 1).map(([k, p]) => [k.toUpperCase(), p * 2]))',
    expect: { value: { APPLE: 2.4, FIG: 6 } },
  },
  {
    name: 'collections: Map iteration order and delete',
    code: "const m = new Map([['x', 1], ['y', 2], ['z', 3]])\nm.delete('y')\nm.set('y', 4)\nm.set('x', 5)\n;[[...m.keys()], [...m.values()]]",
    expect: {
      value: [
        ['x', 'z', 'y'],
        [5, 3, 4],
      ],
    },
  },
  {
    name: 'collections: WeakMap cannot leave but can be used inside',
    code: 'const cache = new WeakMap()\nconst key = {}\ncache.set(key, 42)\n;[cache.get(key), cache.has({})]',
    expect: { value: [42, false] },
  },
  {
    name: 'collections: a WeakSet value is refused',
    code: 'new WeakSet()',
    expect: { error: { code: 'RUNTIME_ERROR', name: 'TypeError' } },
  },
  {
    name: 'collections: nested Maps and Sets',
    code: "new Map([['tags', new Set(['a', 'b'])], ['meta', new Map([['n', 1n]])]])",
    expect: {
      value: new Map<string, unknown>([
        ['tags', new Set(['a', 'b'])],
        ['meta', new Map([['n', 1n]])],
      ]),
    },
  },
  {
    name: 'collections: Map keyed by NaN and -0',
    code: 'const m = new Map([[NaN, "nan"], [0, "zero"]])\n;[m.get(NaN), m.get(-0), [...m.keys()]]',
    expect: { value: ['nan', 'zero', [NaN, 0]] },
  },
  {
    name: 'collections: LRU cache on a Map',
    code: "class LRU { constructor(n) { this.n = n; this.m = new Map() } get(k) { if (!this.m.has(k)) return undefined; const v = this.m.get(k); this.m.delete(k); this.m.set(k, v); return v } set(k, v) { this.m.delete(k); this.m.set(k, v); if (this.m.size > this.n) this.m.delete(this.m.keys().next().value) } }\nconst c = new LRU(2)\nc.set('a', 1); c.set('b', 2); c.get('a'); c.set('c', 3)\n;[...c.m.keys()]",
    expect: { value: ['a', 'c'] },
  },
  {
    name: 'collections: typed arrays',
    code: 'const f = new Float32Array([1.5, 0.1]); const u = Uint8Array.from([255, 256, -1])\n;({ f, u, i: new Int16Array(2), sum: u.reduce((a, b) => a + b, 0) })',
    expect: { value: { f: new Float32Array([1.5, 0.1]), u: new Uint8Array([255, 0, 255]), i: new Int16Array(2), sum: 510 } },
  },
  {
    name: 'collections: ArrayBuffer and DataView inside, buffer out',
    code: 'const buf = new ArrayBuffer(4)\nnew DataView(buf).setUint16(0, 0xbeef)\nbuf',
    expect: { value: new Uint8Array([0xbe, 0xef, 0, 0]).buffer },
  },
]
