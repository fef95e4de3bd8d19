/**
 * Random bodies of an async function, from a small grammar: let-bound variables, arithmetic and
 * strings, awaits, helper calls, if/for-of/try/blocks, console.log, throw and return. The last
 * statement is never an expression statement (nor an if with one inside: a last if gives its
 * completion value) and the body is never a lone function declaration, so normalization has no
 * documented reason to change what the body means. Template literals
 * carry the text normalization looks for (fences, `export default`, comments, a shebang) inside
 * strings, where it must be left alone.
 *
 * Shared with tests/cross-backend, which runs the same bodies on the real backends.
 */
import fc from 'fast-check'

const PRELUDE = "let a = 3, b = -2, c = 'x'\nfunction f(n) { return n * 2 }\nasync function g(n) { await null; return n + 1 }"

const TRICKY_TEXT = [
  '```',
  '```js',
  '```ts',
  'export default 1',
  '#!/bin/sh',
  '// not a comment',
  '/* nor this */',
  "import x from 'y'",
  'return 7',
  '})',
]

const atom: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: -5, max: 20 }).map((n) => (n < 0 ? `(${n})` : String(n))),
  fc.constantFrom('a', 'b', 'c', "'s'", "''", 'true', 'null', 'undefined', '-0', 'NaN'),
  // Backticks escaped: a line that starts with a bare ``` is a Markdown fence by definition, even
  // where JavaScript would read it as templates (the fuzzer found `\n```\n` tagged templates).
  fc
    .array(fc.constantFrom(...TRICKY_TEXT), { minLength: 1, maxLength: 3 })
    .map((lines) => `\`\n${lines.join('\n').replaceAll('`', '\\`')}\n\``),
)

export const expression: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    atom,
    fc.tuple(tie('e'), fc.constantFrom('+', '-', '*', '===', '<', '??', '&&', '||'), tie('e')).map(([x, op, y]) => `(${x} ${op} ${y})`),
    fc.tuple(tie('e'), tie('e'), tie('e')).map(([x, y, z]) => `(${x} ? ${y} : ${z})`),
    tie('e').map((x) => `(await ${x})`),
    tie('e').map((x) => `f(${x})`),
    tie('e').map((x) => `(await g(${x}))`),
    tie('e').map((x) => `\`<\${${x}}>\``),
    tie('e').map((x) => `typeof ${x}`),
    tie('e').map((x) => `({ k: ${x} }).k`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `[${x}, ${y}].length`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `(${x}, ${y})`),
    tie('e').map((x) => `(await (async () => ${x})())`),
    tie('e').map((x) => `/a+/.test(${x})`),
  ),
})).e

const statements = (depth: number): fc.Arbitrary<string[]> => fc.array(statement(depth), { maxLength: depth === 0 ? 4 : 2 })
const block = (depth: number) => statements(depth + 1).map((s) => `{\n${s.join('\n')}\n}`)

function statement(depth: number): fc.Arbitrary<string> {
  const simple = fc.oneof(
    fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.constantFrom('=', '+='), expression).map(([v, op, e]) => `${v} ${op} ${e}`),
    expression.map((e) => `console.log(${e})`),
    expression.map((e) => `return ${e}`),
    expression.map((e) => `throw new Error(String(${e}))`),
    // An expression statement in the middle: its value is dropped either way.
    expression.map((e) => `void ${e}`),
    fc.constantFrom('// a comment with ```js in it', '/* return 1 */', ';'),
  )
  if (depth >= 2) return simple
  return fc.oneof(
    { weight: 3, arbitrary: simple },
    fc.tuple(expression, block(depth), block(depth)).map(([e, y, n]) => `if (${e}) ${y} else ${n}`),
    fc.tuple(expression, expression, block(depth)).map(([x, y, body]) => `for (const item of [${x}, ${y}]) ${body}`),
    fc.tuple(block(depth), block(depth)).map(([t, fin]) => `try ${t} catch (err) {\nconsole.log('caught', err.message)\n} finally ${fin}`),
    block(depth),
  )
}

/** The last statement: anything but an expression statement. */
const lastStatement = fc.oneof(
  expression.map((e) => `return ${e}`),
  expression.map((e) => `let last = ${e}`),
  fc.tuple(expression, expression).map(([x, y]) => `if (${x}) {\nreturn ${y}\n}`),
)

/** A body, its statements separated by `;\n` or by a bare newline (so ASI hazards appear too). */
export const asyncBody: fc.Arbitrary<string> = fc
  .tuple(fc.boolean(), statements(0), lastStatement, fc.constantFrom(';\n', '\n'))
  .map(([strict, middle, last, separator]) => [...(strict ? ["'use strict'"] : []), PRELUDE, ...middle, last].join(separator))
