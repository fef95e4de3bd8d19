/**
 * Property-based fuzzing of the value codec across backends: random values cross in every
 * direction (global in, tool arguments out, tool result in, result out, and built by the guest
 * itself) and come back equal, and values the model refuses are refused with the same error,
 * on every backend.
 */
import { isSandboxError, type ToolSet } from '@cordon/core'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BACKEND_NAMES, closeSandboxes, openSandboxes, type Sandboxes } from './support/backends.js'
import { canonical } from './support/canonical.js'
import { fuzzSettings } from './support/fuzz-settings.js'
import { placedPoison } from './support/poison-arbitrary.js'
import { agreed, runEverywhere } from './support/run-everywhere.js'
import { valueSample } from './support/value-arbitrary.js'

let sandboxes: Sandboxes | undefined
beforeAll(() => {
  sandboxes = openSandboxes()
})
afterAll(() => closeSandboxes(sandboxes))

const echo: ToolSet = { echo: { execute: async (args: unknown) => args } }

describe('values that the model supports', () => {
  test('round-trip through globals, tool arguments, tool results, results and guest literals', async () => {
    const code = (source: string) => `const built = ${source}\nconst echoed = await echo(input)\nreturn [input, echoed, built]`
    await fc.assert(
      fc.asyncProperty(valueSample, async ({ value, source }) => {
        const outcome = agreed(await runEverywhere(sandboxes!, code(source), { globals: { input: value }, tools: echo }), source)
        expect(outcome.error).toBeUndefined()
        expect(outcome.value).toStrictEqual(canonical([value, value, value]))
      }),
      fuzzSettings(25),
    )
  })

  test('huge strings cross whole, or end OUTPUT_LIMIT on every backend alike', async () => {
    const unit = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 })
    await fc.assert(
      fc.asyncProperty(unit, fc.integer({ min: 50_000, max: 600_000 }), async (chunk, length) => {
        const input = chunk.repeat(Math.ceil(length / chunk.length)).slice(0, length)
        // `built` repeats in the guest; the result is one copy, so the limit is met only by big multi-byte inputs.
        const code = `const built = ${JSON.stringify(chunk)}.repeat(${Math.ceil(length / chunk.length)}).slice(0, ${length})\nif (built !== input) throw new Error('the global arrived changed')\nreturn built`
        const outcome = agreed(await runEverywhere(sandboxes!, code, { globals: { input } }), `a string of ${length} units`)
        if (Buffer.byteLength(JSON.stringify(input)) > 1024 * 1024) expect(outcome.error?.code).toBe('OUTPUT_LIMIT')
        else expect(outcome.value).toBe(input)
      }),
      fuzzSettings(5),
    )
  })

  const nest = (shape: string, depth: number) => {
    const wrap = {
      array: (v: string) => `[${v}]`,
      object: (v: string) => `{ k: ${v} }`,
      map: (v: string) => `new Map([[1, ${v}]])`,
      set: (v: string) => `new Set([${v}])`,
    }[shape]!
    return `let v = 0\nfor (let i = 0; i < ${depth}; i++) v = ${wrap('v')}\nconst echoed = await echo(v)\nreturn echoed`
  }

  test("nested containers cross both ways on every backend (depth within every engine's stack)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 90 }), fc.constantFrom('array', 'object', 'map', 'set'), async (depth, shape) => {
        const outcome = agreed(await runEverywhere(sandboxes!, nest(shape, depth), { tools: echo }), `${shape} nested ${depth} deep`)
        expect(outcome.ok).toBe(true)
      }),
      fuzzSettings(8),
    )
  })

  // KNOWN DIFFERENCE (reported, not hidden): the value model allows 1,000 levels, and the V8
  // backends reach them; QuickJS's guest codec recurses on a 256 KiB stack (maxStackSizeBytes)
  // and overflows first: about 300 levels of arrays or objects and 100-200 of Maps in the guest's
  // encoder, about 800 in its decoder. This test pins today's behaviour so a fix shows up here.
  test('1,000 levels: V8 backends cross and refuse 1,001; QuickJS overflows its stack', async () => {
    for (const depth of [1000, 1001]) {
      const outcomes = await runEverywhere(sandboxes!, nest('array', depth), { tools: echo })
      const v8 = agreed(
        {
          ivm: outcomes.ivm,
          quickjs: outcomes.ivm,
          'quickjs-inline': outcomes.ivm,
          subprocess: outcomes.subprocess,
          'subprocess-quickjs': outcomes.ivm,
          'subprocess-node-vm': outcomes['subprocess-node-vm'],
        },
        `array nested ${depth} deep`,
      )
      if (depth === 1000) expect(v8.ok).toBe(true)
      else
        expect(v8.error).toMatchObject({
          code: 'RUNTIME_ERROR',
          name: 'TypeError',
          message: expect.stringContaining('nested deeper than 1000 levels'),
        })
      for (const quickjs of [outcomes.quickjs, outcomes['quickjs-inline'], outcomes['subprocess-quickjs']])
        expect(quickjs.error).toMatchObject({ code: 'RUNTIME_ERROR', name: 'InternalError', message: 'stack overflow' })
    }
  })
})

describe('values that the model refuses', () => {
  test('a guest result is refused with the same TypeError naming the path', async () => {
    await fc.assert(
      fc.asyncProperty(placedPoison, async ({ kind, source }) => {
        // Inside an array: a program's own top-level promise is awaited, which is not the point here.
        const outcome = agreed(await runEverywhere(sandboxes!, `return [${source}]`), source)
        expect(outcome.error).toMatchObject({ code: 'RUNTIME_ERROR', name: 'TypeError' })
        expect(outcome.error!.message, kind).toMatch(/\(at \$[^)]*\) cannot leave or enter the sandbox/)
      }),
      fuzzSettings(16),
    )
  })

  test('tool arguments and tool results are refused in the guest with the same error', async () => {
    await fc.assert(
      fc.asyncProperty(placedPoison, async ({ source, host }) => {
        // In an array: a promise returned by execute itself is awaited, as any async function's would be.
        const tools: ToolSet = { ...echo, poison: { execute: async () => [host()] } }
        const code = `const out = []\nfor (const call of [() => echo(${source}), () => poison()]) {\n  try { await call(); out.push('crossed') } catch (e) { out.push([e.name, e.message]) }\n}\nout`
        const outcome = agreed(await runEverywhere(sandboxes!, code, { tools }), source)
        expect(outcome.error).toBeUndefined()
        const [args, result] = outcome.value as [string, string][]
        expect(args?.[0]).toBe('TypeError')
        expect(result?.[1]).toMatch(/^tool poison returned a value that cannot enter the sandbox \(at \$/)
      }),
      fuzzSettings(15),
    )
  })

  test('a global is refused before anything runs, with the same INVALID_OPTIONS error', async () => {
    await fc.assert(
      fc.asyncProperty(placedPoison, async ({ host }) => {
        const messages = await Promise.all(
          BACKEND_NAMES.map((name) =>
            sandboxes![name].run('input', { globals: { input: host() } }).then(
              () => 'ran',
              (error: unknown) => (isSandboxError(error, 'INVALID_OPTIONS') ? error.message : `unexpected ${String(error)}`),
            ),
          ),
        )
        expect(new Set(messages).size).toBe(1)
        expect(messages[0]).toMatch(/^globals: .*\(at \$\.input/)
      }),
      fuzzSettings(30),
    )
  })
})
