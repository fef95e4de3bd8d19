import vm from 'node:vm'
import { describe, expect, test } from 'vitest'
import { normalizeCode, toUserPosition, type NormalizeResult } from '../src/normalize/index.js'

/** normalizeCode must settle with a result (never reject) for anything. */
async function settle(code: string): Promise<NormalizeResult> {
  const result = await normalizeCode(code)
  expect(typeof result.ok).toBe('boolean')
  if (!result.ok) {
    expect(result.error.name).toBe('SyntaxError')
    expect(Number.isInteger(result.error.line) && result.error.line >= 1).toBe(true)
    expect(Number.isInteger(result.error.column) && result.error.column >= 1).toBe(true)
    expect(result.error.message).not.toMatch(/\(\d+:\d+\)$/)
  }
  return result
}

async function value(result: NormalizeResult): Promise<unknown> {
  if (!result.ok) throw new Error(JSON.stringify(result.error))
  return (new vm.Script(result.program.script).runInNewContext({}) as () => Promise<unknown>)()
}

describe('deep nesting', () => {
  test('100k nested parentheses: a SyntaxError, not a stack overflow', async () => {
    const result = await settle('('.repeat(100_000) + '1' + ')'.repeat(100_000))
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error.message).toBe('Not enough stack space to parse input')
  })

  test('deep brackets, braces, functions, unary chains and binary chains', async () => {
    const n = 50_000
    await settle('['.repeat(n) + ']'.repeat(n))
    await settle('{'.repeat(n) + '}'.repeat(n))
    await settle('x = '.repeat(n) + '1')
    await settle('-'.repeat(n * 2) + '1')
    await settle('!'.repeat(n) + '1')
    await settle('1' + ' + 1'.repeat(n))
    await settle('a'.repeat(10) + '.b'.repeat(n))
    await settle('() => '.repeat(n) + '1')
    await settle('if (1) '.repeat(n) + ';')
    await settle('`${'.repeat(n) + '1' + '}`'.repeat(n))
  })

  test('deep nesting that only fails in the TypeScript stripper', async () => {
    // Not JavaScript (the annotation), so sucrase is tried — and runs out of stack.
    await settle('const x: number = ' + '('.repeat(100_000) + '1' + ')'.repeat(100_000))
    await settle('```ts\n' + '('.repeat(100_000) + '1' + ')'.repeat(100_000) + '\n```')
  })

  test('moderate nesting still works', async () => {
    await expect(value(await settle('('.repeat(200) + '7' + ')'.repeat(200)))).resolves.toBe(7)
  })
})

describe('big inputs', () => {
  test('100k lines of expressions', async () => {
    const code = 'let s = 0\n' + 's += 1\n'.repeat(100_000) + 's'
    const result = await settle(code)
    await expect(value(result)).resolves.toBe(100_000)
  })

  test('100k top-level declarations (acorn alone is quadratic here)', async () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `const v${i} = ${i}`)
    // Unpatched acorn takes over a minute here (~1 s with the linear scope patch); no timing assertion.
    const result = await settle(lines.join('\n') + '\nv99999')
    await expect(value(result)).resolves.toBe(99_999)
  })

  test('a syntax error at the end of 100k lines is located exactly', async () => {
    const result = await settle('x = 1\n'.repeat(100_000) + 'x = ;')
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error).toMatchObject({ line: 100_001, column: 5 })
  })

  test('a 1 MB single line', async () => {
    await settle('"' + 'a'.repeat(1_000_000) + '".length')
    await settle('/*' + '*'.repeat(1_000_000))
  })

  test('many fences and backticks', async () => {
    await settle('```\n'.repeat(50_000))
    await settle('`'.repeat(100_000))
    await settle('Text\n' + '```js\n1\n```\n'.repeat(20_000))
    await settle('```js\n' + '`'.repeat(99_999) + '\n```')
  })
})

describe('garbage', () => {
  test('random bytes, control characters, lone surrogates', async () => {
    let seed = 42
    const rnd = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff
      return seed
    }
    for (let i = 0; i < 200; i++) {
      const len = rnd() % 200
      let code = ''
      for (let j = 0; j < len; j++) code += String.fromCharCode(rnd() % (i % 2 === 0 ? 128 : 0x10000))
      await settle(code)
    }
    await settle('\u0000\u0001')
    await settle('\uD800\uDC00\uD800')
    await settle('let \u2028 x = 1')
  })

  test('JavaScript-looking fragments', async () => {
    const fragments = [
      '})',
      '}',
      '{',
      ')',
      '(',
      '*/',
      '/*',
      '//',
      '`',
      '${',
      '"',
      "'",
      '/',
      '\\',
      '<!--',
      '-->',
      'return',
      'await',
      'yield',
      'export',
      'export default',
      'import',
      'import(',
      '#!',
      '#',
      '@',
      'new.target',
      'super()',
      'arguments',
      'break',
      'continue',
      'label: label: 1',
      'with (a) {}',
      '"use strict"; with (a) {}',
      'let let',
      'function* () {}',
      'async function* g() {}',
      '<>',
      '</>',
      'a<b>(c)',
      '```',
      '```js',
      '```js\n```',
      '```\n})\n(function () {\n```',
    ]
    for (const code of fragments) await settle(code)
  })

  test('the output of a successful normalization is always one function expression', async () => {
    const codes = ['1', '}\n{', 'export default 1', '"use strict"', '#!x\n1', 'async () => 1', 'function f() {}']
    for (const code of codes) {
      const result = await settle(code)
      if (result.ok) {
        expect(result.program.script.startsWith('(async function () {\n')).toBe(true)
        expect(result.program.script.endsWith('})')).toBe(true)
        expect(typeof new vm.Script(result.program.script).runInNewContext({})).toBe('function')
      }
    }
  })

  test('a non-string argument is a SyntaxError result, not a throw', async () => {
    await settle(undefined as unknown as string)
    await settle(42 as unknown as string)
  })

  test('toUserPosition tolerates nonsense', async () => {
    const result = await settle('1')
    if (!result.ok) throw new Error('unexpected')
    expect(toUserPosition(result.program, Number.NaN)).toBeUndefined()
    expect(toUserPosition(result.program, -5, 3)).toBeUndefined()
    expect(toUserPosition(result.program, 1e9, 1)).toBeUndefined()
    expect(toUserPosition(result.program, 2, 1e9)).toEqual({ line: 1, column: expect.any(Number) })
    expect(toUserPosition(result.program, 2, -3)).toEqual({ line: 1, column: 1 })
    expect(toUserPosition(result.program, 2, Number.NaN)).toEqual({ line: 1 })
  })
})
