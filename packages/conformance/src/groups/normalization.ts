import { expectError, runOk, timedRun } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'

const FENCE = '```'

function form(name: string, code: string, expected: unknown): ConformanceCheck {
  return {
    group: 'normalization',
    name,
    async run({ sandbox }) {
      expectSameValue(await runOk(sandbox, code), expected, `the value of ${JSON.stringify(code)}`)
    },
  }
}

function syntaxError(name: string, code: string, line: number, column: number): ConformanceCheck {
  return {
    group: 'normalization',
    name,
    async run({ sandbox }) {
      const { result } = await timedRun(sandbox, code)
      const error = expectError(result, 'SYNTAX_ERROR')
      if (error.line !== line || error.column !== column) {
        throw new Error(
          `the syntax error should be at line ${line}, column ${column} of the user's code; got line ${String(error.line)}, column ${String(error.column)} (${error.message})`,
        )
      }
    },
  }
}

export const normalizationChecks: readonly ConformanceCheck[] = [
  form('a bare expression: 1 + 2', '1 + 2', 3),
  form('statements whose last expression is the value', 'const a = [1, 2]; a.map(x => x * 2)', [2, 4]),
  form('the last expression on its own line, after a comment', 'const a = 2\n// double it\na * 2 // done\n', 4),
  form('an object literal in parentheses', '({ a: 1 })', { a: 1 }),
  form('a program ending in a declaration is undefined', 'const a = 1', undefined),
  // A last if, loop, try, block, switch or label: its completion value, as eval gives it.
  form(
    'a last if gives the last expression of the branch that ran',
    "const n = 2\nif (n > 5) 'big'\nelse if (n > 1) 'medium'\nelse 'small'",
    'medium',
  ),
  form('a last if whose branch did not run gives undefined', 'if (false) { 1 }', undefined),
  form(
    'a last try/catch gives the value of the block that ran; finally does not count',
    "try { JSON.parse('{') } catch (e) { e.name } finally { 'not counted' }",
    'SyntaxError',
  ),
  form("a last loop gives its last iteration's value", 'let sum = 0\nfor (const x of [1, 2, 3]) { sum += x }', 6),
  form("a last block gives its last expression's value", "{ 'a'; { 'b' } }", 'b'),
  form(
    'a last switch gives the value of the case that ran',
    "switch (2) { case 1: 'one'; break; case 2: 'two'; break; default: 'other' }",
    'two',
  ),
  form('a labeled block left with break gives the value before the break', "outer: { 'inside'; break outer }", 'inside'),
  form('return at top level', 'const xs = [3, 1, 2]\nif (xs.length > 2) return Math.max(...xs)\nreturn 0', 3),
  form('return inside nested functions does not end the program', 'function f() { return 1 }\nconst g = () => { return 2 }\nf() + g()', 3),
  form('top-level await', 'const x = await Promise.resolve(2)\nx * 3', 6),
  form('top-level await in the last expression', 'await new Promise((resolve) => setTimeout(() => resolve(7), 5))', 7),
  form('an async arrow function is called', 'async () => 42', 42),
  form('an async arrow with a block body is called', 'async () => {\n  const a = await Promise.resolve(20)\n  return a + 1\n}', 21),
  form('export default async function', 'export default async function () { return 1 }', 1),
  form('a ```js fence with text around it', `Here you go:\n${FENCE}js\nconst a = 5\na * 2\n${FENCE}\nThis doubles five.`, 10),
  form('a ```javascript fence', `${FENCE}javascript\n'fenced'\n${FENCE}`, 'fenced'),
  form('a bare ``` fence', `${FENCE}\n[1, 2].length\n${FENCE}`, 2),
  form(
    'a ```ts fence with TypeScript',
    `Typed:\n${FENCE}ts\nconst n: number = 4\nfunction sq(x: number): number { return x * x }\nsq(n)\n${FENCE}`,
    16,
  ),
  form('TypeScript without a fence', 'const n: number = 1; interface A {}; n', 1),
  form(
    'TypeScript type aliases, generics and casts',
    'type Pair<T> = [T, T]\nconst p: Pair<string> = ["a", "b"]\nfunction first<T>(xs: T[]): T { return xs[0] as T }\n(first(p) as string) + p.length',
    'a2',
  ),
  syntaxError('a syntax error → SYNTAX_ERROR at the user’s line and column', 'const a = 1\nconst b = ;', 2, 11),
  syntaxError(
    'a syntax error in TypeScript → SYNTAX_ERROR at its own line, not at the first type annotation',
    'const a: number = 1\nconst b: = 2',
    2,
    10,
  ),
  syntaxError(
    'a syntax error in a fence counts the text and fence lines',
    `Some text\n${FENCE}js\nconst a = 1\nconst b = ;\n${FENCE}`,
    4,
    11,
  ),
  {
    group: 'normalization',
    name: 'a syntax error runs nothing',
    async run({ sandbox }) {
      let ran = false
      const tools = { 'probe.ran': { execute: () => (ran = true) } }
      const { result } = await timedRun(sandbox, 'await probe.ran()\nconst = 1', { tools })
      expectError(result, 'SYNTAX_ERROR')
      if (ran) throw new Error('code before the syntax error ran')
    },
  },
]
