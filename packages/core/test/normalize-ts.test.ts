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

const JSX = 'JSX is not supported in the sandbox'

describe('TypeScript detection', () => {
  test('plain JavaScript stays js', async () => {
    expect((await normalized('const a = 1\na')).language).toBe('js')
  })

  test('unfenced TypeScript is detected when it is not valid JavaScript', async () => {
    const program = await normalized('const x: number = 41\nx + 1')
    expect(program.language).toBe('ts')
    expect(program.script).not.toContain('number')
    await expect(run('const x: number = 41\nx + 1')).resolves.toBe(42)
  })

  test('a ts / typescript / tsx fence forces TypeScript', async () => {
    for (const tag of ['ts', 'typescript', 'TS', 'tsx']) {
      expect((await normalized('```' + tag + '\n1 + 1\n```')).language, tag).toBe('ts')
    }
    expect((await normalized('```js\n1 + 1\n```')).language).toBe('js')
  })

  test('the known ambiguity: `f<T>(x)` is JavaScript unless the fence says ts', async () => {
    const globals = { f: (v: number) => v * 10, T: 2, x: 1 }
    // As JavaScript: (f < T) > x — a comparison, evaluates to false.
    const js = await normalized('f<T>(x)')
    expect(js.language).toBe('js')
    await expect(run('f<T>(x)', globals)).resolves.toBe(false)
    // As TypeScript: a generic call f(x).
    await expect(run('```ts\nf<T>(x)\n```', globals)).resolves.toBe(10)
  })
})

describe('TypeScript syntax is stripped', () => {
  test('type annotations, interfaces and type aliases', async () => {
    const code = [
      'interface User {',
      '  name: string',
      '  age?: number',
      '}',
      'type Id = string | number',
      'const users: User[] = [{ name: "a" }, { name: "b", age: 3 }]',
      'function label(u: User, id: Id): string {',
      '  return `${id}:${u.name}`',
      '}',
      'users.map((u, i): string => label(u, i))',
    ].join('\n')
    expect(await run(code)).toEqual(['0:a', '1:b'])
  })

  test('generics, `as`, non-null assertions, satisfies', async () => {
    const code = [
      'function first<T>(xs: T[]): T | undefined { return xs[0] }',
      'const m = new Map<string, number>([["a", 1]])',
      'const v = m.get("a")! as number',
      'const cfg = { n: 2 } satisfies { n: number }',
      'first<number>([v + cfg.n, 0])',
    ].join('\n')
    await expect(run(code)).resolves.toBe(3)
  })

  test('enums become objects (sucrase emits real code for them, const enums included)', async () => {
    const code = 'enum Color {\n  Red,\n  Green = 5,\n  Blue,\n}\nconst enum Flag { On = "on" }\n[Color.Blue, Color[5], Flag.On]'
    expect(await run(code)).toEqual([6, 'Green', 'on'])
    const program = await normalized(code)
    expect(program.script).toContain('(function (Color)')
  })

  test('classes: access modifiers, parameter properties, optional members, abstract', async () => {
    const code = [
      'abstract class Shape { abstract area(): number }',
      'class Square extends Shape {',
      '  private label?: string',
      '  constructor(public readonly side: number) { super() }',
      '  area(): number { return this.side ** 2 }',
      '}',
      'new Square(3).area()',
    ].join('\n')
    await expect(run(code)).resolves.toBe(9)
  })

  test('declare and type-only imports disappear', async () => {
    await expect(run('declare const host: { name: string }\nimport type { Foo } from "./foo"\nconst f: Foo = 1 as Foo\nf')).resolves.toBe(1)
  })

  test('top-level await, return and export default in TypeScript', async () => {
    await expect(run('const v: number = await Promise.resolve(2)\nreturn v * 2')).resolves.toBe(4)
    await expect(run('export default async function main(): Promise<string> {\n  return "ts main"\n}')).resolves.toBe('ts main')
    await expect(run('async (): Promise<number> => 7')).resolves.toBe(7)
  })

  test('TypeScript imports are still rejected, even unused ones', async () => {
    const message = 'import statements are not available in the sandbox; use the provided tools and globals'
    expect(await syntaxError('const a: number = 1\nimport { readFile } from "node:fs"')).toMatchObject({ message, line: 2, column: 1 })
    expect(await syntaxError('```ts\nimport fs from "node:fs"\nconst x: string = fs.readFileSync("x")\n```')).toMatchObject({
      message,
      line: 2,
      column: 1,
    })
  })

  test('lines are preserved: a runtime error maps back to its TypeScript line', async () => {
    const code = [
      'Here is the TypeScript:',
      '```ts',
      'enum E {',
      '  A,',
      '  B,',
      '}',
      'interface Box<T> {',
      '  value: T',
      '}',
      'const box: Box<number> = { value: E.B }',
      'const oops: any = null',
      'oops.value + box.value',
      '```',
    ].join('\n')
    const program = await normalized(code)
    expect(program.script.split('\n').length).toBe(10 + 2)
    const fn = new vm.Script(program.script, { filename: 'guest.js' }).runInNewContext({}) as () => Promise<unknown>
    const err = await fn().then(
      () => undefined,
      (e: unknown) => e as Error,
    )
    const m = /guest\.js:(\d+):(\d+)/.exec(String(err?.stack))
    expect(m).not.toBeNull()
    expect(toUserPosition(program, Number(m![1]))?.line).toBe(12)
  })
})

describe('TypeScript syntax errors', () => {
  test('unfenced: when neither parse works, the JavaScript error is reported on its line', async () => {
    // As JS the `:` is unexpected (col 8); sucrase would complain later on the same line — the JS error wins.
    expect(await syntaxError('const x: number = ;')).toEqual({ name: 'SyntaxError', message: 'Unexpected token', line: 1, column: 8 })
    // TypeScript with its mistake on a later line: the mistake, not the first annotation.
    expect(await syntaxError('const a: number = 1\nconst b: = 2')).toMatchObject({ line: 2, column: 10 })
    // Plain JavaScript keeps its JavaScript error.
    expect(await syntaxError('const a = 1\nconst b = = 2')).toEqual({
      name: 'SyntaxError',
      message: 'Unexpected token',
      line: 2,
      column: 11,
    })
  })

  test('ts fence: the TypeScript error is reported, in original coordinates', async () => {
    const error = await syntaxError('Code:\n```ts\nconst x: number = 1\nconst y: = 2\n```')
    expect(error).toMatchObject({ name: 'SyntaxError', line: 4 })
    expect(error.message).not.toMatch(/\(\d+:\d+\)$/)
  })

  test('ts fence: an error found after stripping is mapped too', async () => {
    expect(await syntaxError('```ts\nconst a: number = 1\nvar await: number = 2\n```')).toMatchObject({ line: 3 })
  })
})

describe('JSX', () => {
  test('JSX is rejected with a clear message at its position', async () => {
    expect(await syntaxError('const el = <div>hi</div>')).toEqual({ name: 'SyntaxError', message: JSX, line: 1, column: 12 })
    expect(await syntaxError('const App = () => (\n  <div className="x">\n    {1}\n  </div>\n)')).toMatchObject({
      message: JSX,
      line: 2,
      column: 3,
    })
    expect(await syntaxError('<Component />')).toMatchObject({ message: JSX, line: 1, column: 1 })
  })

  test('JSX in a jsx / tsx fence, and JSX mixed with TypeScript', async () => {
    expect(await syntaxError('```jsx\nconst a = 1\nreturn <p>{a}</p>\n```')).toMatchObject({ message: JSX, line: 3 })
    expect(await syntaxError('```tsx\nconst a: number = 1\nreturn <p>{a}</p>\n```')).toMatchObject({ message: JSX, line: 3, column: 8 })
    expect(await syntaxError('const a: number = 1\nconst b = <p>{a}</p>')).toMatchObject({ message: JSX, line: 2, column: 11 })
  })

  test('comparisons that merely contain `<` are not JSX', async () => {
    await expect(run('const a = 1, b = 2\na < b')).resolves.toBe(true)
    expect((await syntaxError('a < ')).message).not.toBe(JSX)
  })
})
