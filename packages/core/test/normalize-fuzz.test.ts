/**
 * Property-based fuzzing of normalization, with no backend: node:vm runs both sides.
 * 1. Whatever the input, normalizeCode does not throw; a success is one async function
 *    expression that acorn parses, with the user's line count kept; a failure points inside the
 *    user's code.
 * 2. A body that is already a valid async function body means the same after normalization:
 *    same value or thrown message, same console output, in the same order.
 */
import { parse, type Expression } from 'acorn'
import fc from 'fast-check'
import { format } from 'node:util'
import vm from 'node:vm'
import { describe, expect, test } from 'vitest'
import { normalizeCode } from '../src/normalize/index.js'
import { asyncBody } from './support/async-body-arbitrary.js'
import { modelOutput } from './support/model-output-arbitrary.js'

const seed = process.env.CORDON_FUZZ_SEED === undefined ? {} : { seed: Number(process.env.CORDON_FUZZ_SEED) }

function wrapperFunction(script: string): Expression {
  const program = parse(script, { ecmaVersion: 'latest', sourceType: 'script' })
  expect(program.body).toHaveLength(1)
  const statement = program.body[0]!
  if (statement.type !== 'ExpressionStatement') throw new Error(`not an expression: ${statement.type}`)
  return statement.expression
}

const lineCount = (text: string) => text.split(/\r\n|[\n\r\u2028\u2029]/).length

describe('normalization always yields something that parses', () => {
  test('random model output normalizes to one async function expression, or to a located SyntaxError', async () => {
    await fc.assert(
      fc.asyncProperty(modelOutput, async (code) => {
        const result = await normalizeCode(code)
        if (result.ok) {
          const fn = wrapperFunction(result.program.script)
          expect(fn.type).toBe('FunctionExpression')
          expect(fn.type === 'FunctionExpression' && fn.async).toBe(true)
        } else {
          expect(result.error.name).toBe('SyntaxError')
          expect(result.error.line).toBeGreaterThanOrEqual(1)
          expect(result.error.line).toBeLessThanOrEqual(lineCount(code))
          expect(result.error.column).toBeGreaterThanOrEqual(1)
        }
      }),
      { numRuns: 400, ...seed },
    )
  })

  test('arbitrary text never makes normalizeCode throw', async () => {
    const token = fc.constantFrom(
      '```',
      'js',
      '\n',
      ' ',
      '{',
      '}',
      '(',
      ')',
      '`',
      "'",
      '"',
      '/',
      '*',
      '//',
      '/*',
      '*/',
      'return',
      'export',
      'default',
      'import',
      'async',
      'await',
      '=>',
      ':',
      ';',
      'x',
      '1',
      '<T>',
      'as',
      '#!',
      '\u2028',
      '\r',
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(token, { maxLength: 40 }).map((t) => t.join('')),
        async (code) => {
          const result = await normalizeCode(code)
          if (result.ok) wrapperFunction(result.program.script)
          else expect(result.error.line).toBeGreaterThanOrEqual(1)
        },
      ),
      { numRuns: 500, ...seed },
    )
  })
})

type Outcome = { value: unknown } | { thrown: string }

/** Runs a script that evaluates to an async function in a fresh context; records console.log output. */
async function runScript(script: string): Promise<{ outcome: Outcome; logs: string[] }> {
  const logs: string[] = []
  const context = vm.createContext({ console: { log: (...args: unknown[]) => logs.push(format(...args)) } })
  const fn = vm.runInContext(script, context) as () => Promise<unknown>
  try {
    return { outcome: { value: await fn() }, logs }
  } catch (error) {
    return { outcome: { thrown: String((error as Error).message) }, logs }
  }
}

/** The body as the engine itself would take it: `new AsyncFunction(body)` in a fresh context. */
function rawScript(body: string): string {
  return `(() => { const AsyncFunction = (async function () {}).constructor; return new AsyncFunction(${JSON.stringify(body)}) })()`
}

function compiles(body: string): boolean {
  try {
    vm.runInContext(rawScript(body), vm.createContext({}))
    return true
  } catch {
    return false
  }
}

describe('normalization keeps the meaning of a valid async function body', () => {
  test('same value or thrown message and the same logs as new AsyncFunction(body)', async () => {
    await fc.assert(
      fc.asyncProperty(asyncBody, async (body) => {
        fc.pre(compiles(body))
        const normalized = await normalizeCode(body)
        if (!normalized.ok) throw new Error(`a valid body was refused: ${JSON.stringify(normalized.error)}`)
        const raw = await runScript(rawScript(body))
        const ours = await runScript(normalized.program.script)
        expect(ours.logs).toStrictEqual(raw.logs)
        if ('value' in raw.outcome && 'value' in ours.outcome)
          expect(Object.is(ours.outcome.value, raw.outcome.value), `${String(ours.outcome.value)} vs ${String(raw.outcome.value)}`).toBe(
            true,
          )
        else expect(ours.outcome).toStrictEqual(raw.outcome)
      }),
      { numRuns: 300, ...seed },
    )
  })
})
