/**
 * Random "model output": the shapes normalization accepts (fences with prose, bare expressions,
 * async arrows, `export default`, TypeScript annotations, top-level await and return, a shebang),
 * mixed with fragments it must refuse or that are plain broken, so that both outcomes are met.
 */
import fc from 'fast-check'
import { expression } from './async-body-arbitrary.js'

const fragment: fc.Arbitrary<string> = fc.oneof(
  expression,
  expression.map((e) => `const v${e.length % 7} = ${e}`),
  expression.map((e) => `return ${e}`),
  expression.map((e) => `await ${e}`),
  expression.map((e) => `export default ${e}`),
  expression.map((e) => `export const x = ${e}`),
  expression.map((e) => `async () => {\n  return ${e}\n}`),
  expression.map((e) => `async function main() {\n  return ${e}\n}`),
  fc.constantFrom(
    'const n: number = 1',
    'interface Row { id: number }',
    'type Pair = [string, number]',
    'function id<T>(x: T): T { return x }',
    'let maybe = null as unknown as string',
    "import fs from 'node:fs'",
    "export * from 'x'",
    '#!/usr/bin/env node',
    "'use strict'",
    '{ a: 1 }',
    '({ a: 1 })',
    '/* unterminated',
    '`unterminated',
    ')',
    '}',
    'label: for (;;) break label',
    '// trailing comment',
  ),
)

const program: fc.Arbitrary<string> = fc
  .array(fragment, { minLength: 1, maxLength: 5 })
  .chain((parts) => fc.constantFrom('\n', ';\n', '; ', ' ').map((separator) => parts.join(separator)))

/** A program, possibly in a Markdown fence with prose around it. */
export const modelOutput: fc.Arbitrary<string> = fc
  .tuple(program, fc.option(fc.constantFrom('', 'js', 'ts', 'typescript', 'jsx', 'javascript'), { nil: undefined }), fc.boolean())
  .map(([code, lang, prose]) => {
    if (lang === undefined) return code
    const fenced = '```' + lang + '\n' + code + '\n```'
    return prose ? `Here is the program:\n\n${fenced}\n\nIt prints the answer.` : fenced
  })
