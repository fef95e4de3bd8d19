import vm from 'node:vm'
import { describe, expect, test } from 'vitest'
import { normalizeCode, toUserPosition, type NormalizedProgram, type NormalizeSyntaxError } from '../src/normalize/index.js'

async function normalized(code: string): Promise<NormalizedProgram> {
  const result = await normalizeCode(code)
  if (!result.ok) throw new Error(`unexpected SyntaxError: ${JSON.stringify(result.error)}`)
  return result.program
}

/** Normalizes, runs the script in a fresh context (tests only), calls it and awaits the value. */
async function run(code: string, globals: Record<string, unknown> = {}): Promise<unknown> {
  const program = await normalized(code)
  const fn = new vm.Script(program.script, { filename: 'guest.js' }).runInNewContext(globals) as () => Promise<unknown>
  return fn()
}

async function syntaxError(code: string): Promise<NormalizeSyntaxError> {
  const result = await normalizeCode(code)
  if (result.ok) throw new Error(`expected a SyntaxError, got ${result.program.script}`)
  return result.error
}

/** The runtime error's position in `script`, read from a V8 stack trace (1-based line and column). */
async function thrownAt(program: NormalizedProgram): Promise<{ line: number; column: number }> {
  const fn = new vm.Script(program.script, { filename: 'guest.js' }).runInNewContext({}) as () => Promise<unknown>
  try {
    await fn()
  } catch (err) {
    const m = /guest\.js:(\d+):(\d+)/.exec(String((err as Error).stack))
    if (m === null) throw new Error(`no position in ${(err as Error).stack}`, { cause: err })
    return { line: Number(m[1]), column: Number(m[2]) }
  }
  throw new Error('the program did not throw')
}

describe('wrapper', () => {
  test('the script is one async function expression; lines of plain code are shifted by one', async () => {
    const program = await normalized('return 1 + 2')
    expect(program.script).toBe('(async function () {\nreturn 1 + 2\n})')
    expect(program.lineDelta).toBe(1)
    expect(program.language).toBe('js')
    await expect(run('return 1 + 2')).resolves.toBe(3)
  })

  test('line count is preserved by every rewrite', async () => {
    const codes = [
      '1 + 2',
      'const a = 1\n\na\n',
      'export default async function main() {\n  return 1\n}\n',
      'export const x = 1\nconst y = 2\nexport {\n  y\n}\nx',
      '#!/usr/bin/env node\nreturn 1',
      'export default\n  42',
    ]
    for (const code of codes) {
      const program = await normalized(code)
      expect(program.script.split('\n').length, code).toBe(code.split('\n').length + 2)
    }
  })
})

describe('values', () => {
  test('the last expression statement is the value', async () => {
    await expect(run('1 + 2')).resolves.toBe(3)
    await expect(run('const a = 1; a + 1')).resolves.toBe(2)
    await expect(run('const a = 1\nconst b = 2\na + b;\n')).resolves.toBe(3)
    await expect(run('let s = 0\nfor (let i = 0; i < 4; i++) s += i\ns // the sum')).resolves.toBe(6)
    await expect(run('(1, 2)')).resolves.toBe(2)
    await expect(run('"hello"')).resolves.toBe('hello')
  })

  test('an object literal in parentheses', async () => {
    expect(await run('({ a: 1 })')).toEqual({ a: 1 })
    expect(await run('const x = 2;\n({ a: 1, x });')).toEqual({ a: 1, x: 2 })
  })

  test('a multi-line last expression and a trailing comment before the semicolon', async () => {
    expect(await run('const xs = [1, 2, 3]\nxs\n  .map((x) => x * 2)\n  .filter((x) => x > 2) // keep big\n;')).toEqual([4, 6])
    await expect(run('1 +\n// comment\n2 /* c */ ;')).resolves.toBe(3)
  })

  test('no value when the last statement is a declaration', async () => {
    await expect(run('const a = 1')).resolves.toBeUndefined()
    await expect(run('function f() { return 1 }')).resolves.toBe(1) // a lone declaration is called
    await expect(run('class A {}')).resolves.toBeUndefined()
    await expect(run('1\nlet b = 2')).resolves.toBeUndefined()
  })

  test('a last if, loop, try, block, switch or label gives its completion value, as eval does', async () => {
    await expect(run('let a = 1; if (a) { a + 1 }')).resolves.toBe(2)
    await expect(run('let a = 0; if (a) { a + 1 }')).resolves.toBeUndefined()
    await expect(run('for (let i = 0; i < 3; i++) { i }')).resolves.toBe(2)
    await expect(run('for (const x of []) { x }')).resolves.toBeUndefined()
    await expect(run("try { JSON.parse('{') } catch (e) { e.name } finally { 'not counted' }")).resolves.toBe('SyntaxError')
    await expect(run("{ 'kept'; (() => { 'not counted' })(); function f() { 'nor this' } }")).resolves.toBe(undefined)
    await expect(run("{ 'kept'; function f() { 'not counted' } }")).resolves.toBe('kept')
    await expect(run("label: { 'in'; break label }")).resolves.toBe('in')
    await expect(run("switch (2) { case 1: 'one'; break; case 2: 'two' }")).resolves.toBe('two')
    await expect(run('if (true) { 7 };;')).resolves.toBe(7)
    await expect(run("if (true) return 'early'\nelse 'late'")).resolves.toBe('early')
  })

  test('a completion value keeps positions: an error inside it maps back to the line and column as written', async () => {
    const program = await normalized('const n = {}\nif (n) {\n  n.a;  n.missing.deep\n}')
    const at = await thrownAt(program)
    // `n.missing.deep` — V8 points at `deep`, column 19 of the user's line 3, past two insertions.
    expect(toUserPosition(program, at.line, at.column)).toEqual({ line: 3, column: 19 })
  })

  test('explicit return, including early return', async () => {
    await expect(run('if (true) return "early"\n"late"')).resolves.toBe('early')
    await expect(run('const a = 5\nreturn a * 2')).resolves.toBe(10)
  })

  test('top-level await', async () => {
    await expect(run('const v = await Promise.resolve(41)\nv + 1')).resolves.toBe(42)
    await expect(run('await new Promise((r) => setTimeout(r, 1)); "done"', { setTimeout })).resolves.toBe('done')
    await expect(run('return await Promise.resolve(7)')).resolves.toBe(7)
  })

  test('empty code and comments only are valid programs with no value', async () => {
    for (const code of ['', '   \n\n', '// nothing\n', '/* a\n b */', '\n// x\n/* y */\n']) {
      await expect(run(code), JSON.stringify(code)).resolves.toBeUndefined()
    }
  })

  test('template literals are ordinary code, not fences', async () => {
    await expect(run('`a ${1 + 1} b`')).resolves.toBe('a 2 b')
    await expect(run('const md = `\n\\`\\`\\`js\ncode\n\\`\\`\\`\n`\nmd.length')).resolves.toBe(16)
    await expect(run('const t = ``\nconst u = `x`\nt + u')).resolves.toBe('x')
    await expect(run('String.raw`a\\nb`')).resolves.toBe('a\\nb')
  })

  test('a fence-looking line inside a block comment of unfenced code is left alone', async () => {
    const code = 'const a = 1\n/*\n```js\nexample\n```\n*/\na + 1'
    const program = await normalized(code)
    expect(program.lineDelta).toBe(1)
    await expect(run(code)).resolves.toBe(2)
  })
})

describe('functions as programs', () => {
  test('an async arrow is called and awaited', async () => {
    await expect(run('async () => { const x = await Promise.resolve(2); return x * 21 }')).resolves.toBe(42)
    await expect(run('async () => 5')).resolves.toBe(5)
    await expect(run('() => "sync arrow"')).resolves.toBe('sync arrow')
    await expect(run('(async () => {\n  return 1\n})')).resolves.toBe(1)
  })

  test('function expressions, named or not, parenthesised or not', async () => {
    await expect(run('(async function main() { return "main" })')).resolves.toBe('main')
    await expect(run('(function () { return 3 })')).resolves.toBe(3)
    await expect(run('(async function fact(n = 5) { return n <= 1 ? 1 : n * (await fact(n - 1)) })')).resolves.toBe(120)
  })

  test('a lone function declaration is called and awaited', async () => {
    await expect(run('async function main() {\n  return [1, 2].length\n}\n')).resolves.toBe(2)
    await expect(run('function main() { return "sync" }')).resolves.toBe('sync')
    await expect(run('// entry point\nasync function main() { return 1 }\n// end')).resolves.toBe(1)
  })

  test('a function as the last expression after other statements is called too', async () => {
    await expect(run('const base = 40\nasync () => base + 2')).resolves.toBe(42)
  })

  test('several declarations without a call: no value (nothing is guessed)', async () => {
    await expect(run('function a() { return 1 }\nfunction b() { return 2 }')).resolves.toBeUndefined()
  })

  test('the usual "define main, then call it" shape', async () => {
    await expect(run('async function main() { return "ok" }\nmain()')).resolves.toBe('ok')
    await expect(run('async function main() { return "ok" }\nawait main()')).resolves.toBe('ok')
  })

  test('generator functions are values, not called', async () => {
    const program = await normalized('(function* () { yield 1 })')
    expect(program.script).not.toContain(')()')
  })
})

describe('exports and imports', () => {
  test('export default <expression> is the value', async () => {
    await expect(run('export default 42')).resolves.toBe(42)
    expect(await run('const a = 1\nexport default { a, b: 2 }')).toEqual({ a: 1, b: 2 })
    await expect(run('export default /* the answer */\n  (6 * 7)')).resolves.toBe(42)
  })

  test('export default function / async function / arrow is called and awaited', async () => {
    await expect(run('export default async function main() { return "named" }')).resolves.toBe('named')
    await expect(run('export default async function () { return "anonymous" }')).resolves.toBe('anonymous')
    await expect(run('export default function () { return "sync" }\n(1)')).resolves.toBe('sync')
    await expect(run('export default async () => "arrow"')).resolves.toBe('arrow')
    await expect(run('export default (async () => {\n  return "parenthesised"\n})')).resolves.toBe('parenthesised')
  })

  test('export default runs after the whole module, like an import would', async () => {
    // `format` is a const declared below main: it must be initialised when main runs.
    const code = 'export default async function main() {\n  return format(2)\n}\nconst format = (n) => `#${n}`\n'
    await expect(run(code)).resolves.toBe('#2')
  })

  test('export default class', async () => {
    await expect(run('export default class Foo {}\n"ignored"').then((v) => typeof v)).resolves.toBe('function')
  })

  test('other exports lose the export keyword', async () => {
    await expect(run('export const x = 1\nexport function f() { return x + 1 }\nf()')).resolves.toBe(2)
    await expect(run('const a = 1, b = 2\nexport { a, b as c }\na + b')).resolves.toBe(3)
    await expect(run('export async function main() { return "lone exported function" }')).resolves.toBe('lone exported function')
    await expect(run('export class K { static v = 3 }\nK.v')).resolves.toBe(3)
  })

  test('module code keeps script (sloppy) semantics in the output', async () => {
    // Module parsing is strict; the output is not: `this` in a plain call is the global object.
    await expect(run('export const x = 1;\n(function () { return this !== undefined })()')).resolves.toBe(true)
  })

  test('import declarations are rejected at their position', async () => {
    const message = 'import statements are not available in the sandbox; use the provided tools and globals'
    expect(await syntaxError('import fs from "node:fs"\nfs.readFileSync("/etc/passwd")')).toEqual({
      name: 'SyntaxError',
      message,
      line: 1,
      column: 1,
    })
    expect(await syntaxError('const a = 1\n\n  import { x } from "y"\nexport default a')).toMatchObject({
      message,
      line: 3,
      column: 3,
    })
    expect(await syntaxError('Sure:\n```js\nconst a = 1\nimport "side-effect"\n```')).toMatchObject({
      message,
      line: 4,
      column: 1,
    })
  })

  test('re-exports are rejected too', async () => {
    expect(await syntaxError('export * from "x"')).toMatchObject({ line: 1, column: 1 })
    expect((await syntaxError('const a = 1\nexport { a } from "x"')).message).toMatch(/not available in the sandbox/)
  })

  test('import inside a block is a plain syntax error', async () => {
    expect(await syntaxError('if (true) {\n  import x from "y"\n}')).toMatchObject({ line: 2, column: 3 })
  })

  test('dynamic import() is left for the engine to reject', async () => {
    const program = await normalized('const m = await import("node:fs")\nm')
    expect(program.script).toContain('import("node:fs")')
  })
})

describe('directives and shebang', () => {
  test('a leading "use strict" stays the directive of the function body', async () => {
    const code = '"use strict";\n(function () { return this === undefined })()'
    const program = await normalized(code)
    expect(program.script.startsWith('(async function () {\n"use strict";\n')).toBe(true)
    await expect(run(code)).resolves.toBe(true)
    await expect(run("'use strict';\nx = 1")).rejects.toThrow(/x is not defined/)
    // Without the directive the same code is sloppy.
    await expect(run('(function () { return this === undefined })()')).resolves.toBe(false)
  })

  test('"use strict" alone is a directive, not a value', async () => {
    await expect(run('"use strict"')).resolves.toBeUndefined()
    await expect(run('"use strict"; async () => 1')).resolves.toBe(1)
    await expect(run('"use strict"\nasync function main() { return 2 }')).resolves.toBe(2)
  })

  test('a shebang line is dropped and its line kept', async () => {
    const program = await normalized('#!/usr/bin/env node\nconst a = 1\na')
    expect(program.script).toBe('(async function () {\n\nconst a = 1\nreturn (a)\n})')
    expect(await syntaxError('#!/usr/bin/env node\nconst = 1')).toMatchObject({ line: 2, column: 7 })
    await expect(run('```js\n#!/usr/bin/env node\n1\n```')).resolves.toBe(1)
  })
})

describe('markdown fences', () => {
  test('a fence with a language tag, any case', async () => {
    for (const tag of ['js', 'javascript', 'JavaScript', 'JS', 'mjs', 'jsx', 'ts', 'typescript', 'TypeScript', 'tsx', '']) {
      const code = '```' + tag + '\nconst a = 20\na * 2 + 2\n```'
      await expect(run(code), tag).resolves.toBe(42)
      expect((await normalized(code)).lineDelta, tag).toBe(0)
    }
  })

  test('prose before and after the block', async () => {
    const code =
      "Here is the code you asked for:\n\n```javascript\nconst x = 3\nx * x\n```\n\nIt squares 3. Let me know if you'd like more!"
    const program = await normalized(code)
    expect(program.lineDelta).toBe(-2)
    await expect(run(code)).resolves.toBe(9)
  })

  test('leading blank lines, trailing blanks, no newline after the closing fence', async () => {
    await expect(run('\n\n  ```js\n1 + 1\n```')).resolves.toBe(2)
    await expect(run('```js\n1 + 1\n```   \n\n')).resolves.toBe(2)
  })

  test('the first JS/TS block wins; a shell block before it is skipped', async () => {
    const code = 'Install:\n```bash\nnpm i thing\n```\nThen:\n```js\n"first"\n```\nor:\n```js\n"second"\n```'
    await expect(run(code)).resolves.toBe('first')
    expect((await normalized(code)).lineDelta).toBe(1 - 6)
  })

  test('info strings with attributes', async () => {
    await expect(run('```js title="main.js"\n1\n```')).resolves.toBe(1)
    await expect(run('```ts{2}\nconst a: number = 1\na\n```')).resolves.toBe(1)
    expect((await normalized('```ts{2}\n1\n```')).language).toBe('ts')
  })

  test('without a JS tag the first untagged block is used', async () => {
    await expect(run('```json\n{"a": 1}\n```\n```\n"untagged"\n```')).resolves.toBe('untagged')
  })

  test('an unclosed fence (truncated output) runs to the end', async () => {
    await expect(run('```js\nconst a = 1\na + 1\n')).resolves.toBe(2)
  })

  test('a stray closing fence after unfenced code', async () => {
    await expect(run('const a = 1\na + 1\n```')).resolves.toBe(2)
    await expect(run('const a = 1\na + 1\n```\n\n')).resolves.toBe(2)
    expect(await syntaxError('const a = 1\na +\n```')).toMatchObject({ line: 2 })
    await expect(run('```js\n"block"\n```\n```')).resolves.toBe('block')
  })

  test('longer fences and indented fences', async () => {
    await expect(run('````js\nconst s = "```"\ns.length\n````')).resolves.toBe(3)
    await expect(run('1. Run this:\n   ```js\n   const v = 5\n   v\n   ```')).resolves.toBe(5)
  })

  test('template literals inside a fenced block', async () => {
    await expect(run('```js\nconst who = "x";\n`hi ${who}`\n```')).resolves.toBe('hi x')
  })

  test('CRLF line endings', async () => {
    const code = 'Text\r\n```js\r\nconst a = 1\r\na + 1\r\n```\r\n'
    await expect(run(code)).resolves.toBe(2)
    expect(await syntaxError('Text\r\n```js\r\nconst a = 1\r\nconst = 2\r\n```')).toMatchObject({ line: 4, column: 7 })
  })
})

describe('syntax errors', () => {
  test('unfenced: 1-based line and column, clean message', async () => {
    expect(await syntaxError('const a = 1\nconst b = ;')).toEqual({
      name: 'SyntaxError',
      message: 'Unexpected token',
      line: 2,
      column: 11,
    })
    expect(await syntaxError('let x = "unterminated')).toEqual({
      name: 'SyntaxError',
      message: 'Unterminated string constant',
      line: 1,
      column: 9,
    })
  })

  test('fenced: lines counted in the original text, fence lines included', async () => {
    const code = 'Here you go:\n\n```js\nconst a = 1\nconst b = a +;\n```\nDone.'
    expect(await syntaxError(code)).toEqual({ name: 'SyntaxError', message: 'Unexpected token', line: 5, column: 14 })
  })

  test('messages never carry acorn\'s "(line:column)" suffix', async () => {
    for (const code of ['(', 'if (', 'let let = 1', '```js\n}\n```', 'a b', 'return return']) {
      expect((await syntaxError(code)).message, code).not.toMatch(/\(\d+:\d+\)$/)
    }
  })

  test('errors found only in the final check are mapped to the user code', async () => {
    // `await` is an identifier in a top-level script, but not inside the async wrapper.
    expect(await syntaxError('const x = 1\nvar await = 2')).toEqual({
      name: 'SyntaxError',
      message: "Cannot use 'await' as identifier inside an async function",
      line: 2,
      column: 5,
    })
    expect(await syntaxError('```js\nvar await = 2\n```')).toMatchObject({ line: 2, column: 5 })
  })

  test('code cannot close the wrapper early', async () => {
    for (const code of ['}, function () {', '}); evil(); (function () {', '})\n(function () {', '} && function () {']) {
      const error = await syntaxError(code)
      expect(error.name, code).toBe('SyntaxError')
      expect(error.line).toBe(1)
    }
  })

  test('unterminated comments, templates and regexps', async () => {
    expect(await syntaxError('1 /* open')).toMatchObject({ line: 1, column: 3, message: 'Unterminated comment' })
    expect(await syntaxError('`open ${1}')).toMatchObject({ line: 1, message: 'Unterminated template literal' })
    // acorn points just after the opening slash.
    expect(await syntaxError('const r = /abc')).toMatchObject({ line: 1, column: 12 })
  })
})

describe('toUserPosition', () => {
  test('wrapper lines are undefined; body lines shift by lineDelta', async () => {
    const program = await normalized('Text\n```js\nconst a = 1\nthrow new Error("x")\n```')
    const lines = program.script.split('\n').length
    expect(toUserPosition(program, 1)).toBeUndefined()
    expect(toUserPosition(program, lines)).toBeUndefined()
    expect(toUserPosition(program, 0)).toBeUndefined()
    expect(toUserPosition(program, 2)).toEqual({ line: 3 })
    expect(toUserPosition(program, 3, 7)).toEqual({ line: 4, column: 7 })
  })

  test('a runtime error maps back to the exact line and column, through `return (` edits', async () => {
    const code = 'Result:\n```js\nconst o = {}\no.missing.deep\n```'
    const program = await normalized(code)
    const at = await thrownAt(program)
    // `o.missing.deep` — V8 points at `deep`, column 11 of the user's line 4.
    expect(toUserPosition(program, at.line, at.column)).toEqual({ line: 4, column: 11 })
  })

  test('columns after a removed `export` keyword', async () => {
    const program = await normalized('export const v = null.x')
    const at = await thrownAt(program)
    expect(toUserPosition(program, at.line, at.column)).toEqual({ line: 1, column: 23 })
    const indented = await normalized('const a = 1\n  export const v = null.x')
    const at2 = await thrownAt(indented)
    expect(toUserPosition(indented, at2.line, at2.column)).toEqual({ line: 2, column: 25 })
  })

  test('positions inside inserted text map to the insertion point', async () => {
    const program = await normalized('  1 + 2')
    // script line 2 is `  return (1 + 2)`; columns 3..10 are the inserted `return (`.
    expect(toUserPosition(program, 2, 1)).toEqual({ line: 1, column: 1 })
    expect(toUserPosition(program, 2, 5)).toEqual({ line: 1, column: 3 })
    expect(toUserPosition(program, 2, 11)).toEqual({ line: 1, column: 3 })
    expect(toUserPosition(program, 2, 13)).toEqual({ line: 1, column: 5 })
  })

  test('a copied program object still maps lines', async () => {
    const program = { ...(await normalized('```js\n1\n```')) }
    expect(toUserPosition(program, 2, 9)).toEqual({ line: 2, column: 9 })
  })
})
