import type { Program } from './program.js'

export const arrays: Program[] = [
  {
    name: 'arrays: map filter reduce',
    code: '[1, 2, 3, 4, 5, 6].filter((n) => n % 2 === 0).map((n) => n * n).reduce((a, b) => a + b, 0)',
    expect: { value: 56 },
  },
  {
    name: 'arrays: sort numbers with a comparator',
    code: 'const xs = [10, 1, 5, 100, 25]\nxs.sort((a, b) => a - b)\nxs',
    expect: { value: [1, 5, 10, 25, 100] },
  },
  { name: 'arrays: default sort is by string', code: '[10, 1, 5, 100, 25].sort()', expect: { value: [1, 10, 100, 25, 5] } },
  {
    name: 'arrays: stable sort of records',
    code: `const people = [{ n: 'a', age: 30 }, { n: 'b', age: 25 }, { n: 'c', age: 30 }, { n: 'd', age: 25 }]
people.sort((x, y) => x.age - y.age).map((p) => p.n).join('')`,
    expect: { value: 'bdac' },
  },
  {
    name: 'arrays: flat and flatMap',
    code: 'const nested = [1, [2, [3, [4]]]]\n;({ one: nested.flat(), all: nested.flat(Infinity), pairs: [1, 2].flatMap((x) => [x, x * 10]) })',
    expect: { value: { one: [1, 2, [3, [4]]], all: [1, 2, 3, 4], pairs: [1, 10, 2, 20] } },
  },
  {
    name: 'arrays: find, findLast, findIndex, some, every',
    code: 'const xs = [3, 8, 12, 5, 20]\nreturn [xs.find((x) => x > 10), xs.findLast((x) => x < 10), xs.findIndex((x) => x === 5), xs.some((x) => x > 19), xs.every((x) => x > 2)]',
    expect: { value: [12, 5, 3, true, true] },
  },
  {
    name: 'arrays: includes and indexOf with NaN',
    code: '[[NaN].includes(NaN), [NaN].indexOf(NaN), [1, 2, 3].at(-1), [0, -0].includes(-0)]',
    expect: { value: [true, -1, 3, true] },
  },
  {
    name: 'arrays: chunking',
    code: 'const chunk = (xs, n) => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n))\nchunk([1, 2, 3, 4, 5, 6, 7], 3)',
    expect: { value: [[1, 2, 3], [4, 5, 6], [7]] },
  },
  {
    name: 'arrays: group by with reduce',
    code: `const rows = [{ k: 'x', v: 1 }, { k: 'y', v: 2 }, { k: 'x', v: 3 }]
rows.reduce((acc, r) => { (acc[r.k] ??= []).push(r.v); return acc }, {})`,
    expect: { value: { x: [1, 3], y: [2] } },
  },
  {
    name: 'arrays: zip and unzip',
    code: "const a = [1, 2, 3], b = ['a', 'b', 'c']\nconst zipped = a.map((x, i) => [x, b[i]])\n;[zipped, zipped.map(([x]) => x)]",
    expect: {
      value: [
        [
          [1, 'a'],
          [2, 'b'],
          [3, 'c'],
        ],
        [1, 2, 3],
      ],
    },
  },
  { name: 'arrays: dedupe preserving order', code: '[...new Set([3, 1, 3, 2, 1, 4])]', expect: { value: [3, 1, 2, 4] } },
  {
    name: 'arrays: splice, fill, copyWithin',
    code: 'const xs = [1, 2, 3, 4, 5]\nconst removed = xs.splice(1, 2, 9, 9, 9)\nreturn { xs, removed, filled: new Array(3).fill(0), copied: [1, 2, 3, 4, 5].copyWithin(0, 3) }',
    expect: { value: { xs: [1, 9, 9, 9, 4, 5], removed: [2, 3], filled: [0, 0, 0], copied: [4, 5, 3, 4, 5] } },
  },
  {
    name: 'arrays: holes become undefined at the boundary',
    code: 'const xs = [1, , 3]\nxs[5] = 6\nreturn { length: xs.length, xs, has1: 1 in xs }',
    expect: { value: { length: 6, xs: [1, undefined, 3, undefined, undefined, 6], has1: false } },
  },
  {
    name: 'arrays: toSorted, toReversed, with are non-mutating',
    code: "const xs = [3, 1, 2]\nconst copy = typeof xs.toSorted === 'function' ? [xs.toSorted(), xs.toReversed(), xs.with(0, 9)] : 'missing'\n;[xs, copy]",
  },
  {
    name: 'arrays: matrix transpose',
    code: 'const m = [[1, 2, 3], [4, 5, 6]]\nm[0].map((_, c) => m.map((row) => row[c]))',
    expect: {
      value: [
        [1, 4],
        [2, 5],
        [3, 6],
      ],
    },
  },
  {
    name: 'arrays: Array.from with an iterator and keys/entries',
    code: "[Array.from('héllo'), [...['a', 'b'].entries()], [...Array(3).keys()]]",
    expect: {
      value: [
        ['h', 'é', 'l', 'l', 'o'],
        [
          [0, 'a'],
          [1, 'b'],
        ],
        [0, 1, 2],
      ],
    },
  },
]
