import { mathTools } from './tools.js'
import type { Program } from './program.js'

const fence = (lang: string, body: string) => 'Here is the code:\n\n```' + lang + '\n' + body + '\n```\n\nIt returns the answer.'

// The shapes models write: fences, bare expressions, last-expression values, TypeScript, exports.
export const shapes: Program[] = [
  { name: 'shapes: a bare expression', code: '6 * 7', expect: { value: 42 } },
  { name: 'shapes: a parenthesised object literal', code: '({ a: 1, b: [2] })', expect: { value: { a: 1, b: [2] } } },
  // JavaScript reads a leading `{` as a block, so `a:` is a label and `, b: [2]` a syntax error.
  {
    name: 'shapes: a bare object literal is a block, not a value',
    code: '{ a: 1, b: [2] }',
    expect: { error: { code: 'SYNTAX_ERROR', line: 1 } },
  },
  {
    name: 'shapes: the last expression is the value',
    code: 'let total = 0\nfor (let i = 1; i <= 10; i++) total += i\ntotal',
    expect: { value: 55 },
  },
  { name: 'shapes: statements without a value give undefined', code: 'const x = 1\nif (x) { void 0 }', expect: { value: undefined } },
  { name: 'shapes: a js fence with prose', code: fence('js', 'const xs = [1, 2, 3]\nxs.map((x) => x * 2)'), expect: { value: [2, 4, 6] } },
  {
    name: 'shapes: a ts fence with types',
    code: fence(
      'ts',
      'interface Item { name: string; qty: number }\nconst items: Item[] = [{ name: "a", qty: 2 }, { name: "b", qty: 3 }]\nconst total: number = items.reduce((s: number, i: Item) => s + i.qty, 0)\ntotal',
    ),
    expect: { value: 5 },
  },
  {
    name: 'shapes: TypeScript without a fence',
    code: 'type Pair<T> = [T, T]\nconst swap = <T,>(p: Pair<T>): Pair<T> => [p[1], p[0]]\nswap<number>([1, 2])',
    expect: { value: [2, 1] },
  },
  {
    name: 'shapes: TypeScript enum and generics',
    code: "enum Color { Red = 'RED', Green = 'GREEN' }\nfunction first<T>(xs: T[]): T | undefined { return xs[0] }\n;[Color.Green, first<string>(['x', 'y'])]",
    expect: { value: ['GREEN', 'x'] },
  },
  {
    name: 'shapes: export default async function',
    code: 'export default async function main() {\n  const n = await math.add({ a: 20, b: 22 })\n  return { n }\n}',
    tools: mathTools(),
    expect: { value: { n: 42 } },
  },
  { name: 'shapes: export default expression', code: 'const helper = (x) => x + 1\nexport default helper(41)', expect: { value: 42 } },
  {
    name: 'shapes: a lone async function declaration is called',
    code: 'async function run() {\n  return "ran"\n}',
    expect: { value: 'ran' },
  },
  {
    name: 'shapes: an async IIFE',
    code: '(async () => {\n  const a = await Promise.resolve(2)\n  return a ** 10\n})()',
    expect: { value: 1024 },
  },
  {
    name: 'shapes: labelled loops with break and continue',
    code: 'const found = []\nouter: for (let i = 0; i < 5; i++) {\n  for (let j = 0; j < 5; j++) {\n    if (j > i) continue outer\n    if (i * j === 6) break outer\n    found.push(`${i}${j}`)\n  }\n}\nfound',
    expect: { value: ['00', '10', '11', '20', '21', '22', '30', '31'] },
  },
  {
    name: 'shapes: a labelled block',
    code: 'let out = "start"\nblock: {\n  out += "-in"\n  if (out.length > 3) break block\n  out += "-never"\n}\nout',
    expect: { value: 'start-in' },
  },
  {
    name: 'shapes: labelled result object',
    code: 'const rows = [3, 1, 2]\n;({ label: "sorted", count: rows.length, value: [...rows].sort() })',
    expect: { value: { label: 'sorted', count: 3, value: [1, 2, 3] } },
  },
  { name: 'shapes: top-level return in the middle', code: 'const n = 5\nif (n > 3) return "big"\n"small"', expect: { value: 'big' } },
  {
    name: 'shapes: use strict directive stays first',
    code: "'use strict'\nconst f = function () { return this }\nf() === undefined",
    expect: { value: true },
  },
  {
    name: 'shapes: a generator is a value, not called',
    code: 'function* gen() { yield 1; yield 2 }\n[...gen()]',
    expect: { value: [1, 2] },
  },
  {
    name: 'shapes: destructuring and spread',
    code: "const { a, b: { c = 3 } = {}, ...rest } = { a: 1, d: 4, e: 5 }\nconst [x, , y = 'dflt', ...others] = [10, 20, undefined, 40, 50]\n;({ a, c, rest, x, y, others })",
    expect: { value: { a: 1, c: 3, rest: { d: 4, e: 5 }, x: 10, y: 'dflt', others: [40, 50] } },
  },
  {
    name: 'shapes: optional chaining and nullish coalescing',
    code: 'const cfg = { server: { port: 0 }, retries: null }\n;[cfg.server?.port ?? 80, cfg.client?.port ?? 80, cfg.retries ?? 3, cfg.server.port || 8080, cfg.missing?.()]',
    expect: { value: [0, 80, 3, 8080, undefined] },
  },
]
