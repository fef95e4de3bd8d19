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

  // KNOWN DIFFERENCE (reported, not hidden): the value model allows 1,000 levels. Plain JSON data
  // reaches them on every backend (QuickJS's guest hands it to its own JSON), but a value the
  // guest's codec has to walk — one holding undefined or a Map, or one nested past 1,000 levels,
  // which is refused with its path — overflows QuickJS's stack (maxStackSizeBytes, 384 KiB by
  // default on quickjs-ng 0.18.0) first: about 550 levels of arrays holding undefined, 240 of
  // Maps. This test pins today's behaviour so a fix shows up here.
  test('1,000 levels: plain data crosses everywhere; V8 backends refuse 1,001 and walk what is not plain, QuickJS overflows its stack', async () => {
    const v8Only = (outcomes: Awaited<ReturnType<typeof runEverywhere>>, what: string) =>
      agreed(
        {
          ivm: outcomes.ivm,
          quickjs: outcomes.ivm,
          'quickjs-inline': outcomes.ivm,
          subprocess: outcomes.subprocess,
          'subprocess-quickjs': outcomes.ivm,
          'subprocess-node-vm': outcomes['subprocess-node-vm'],
        },
        what,
      )
    const quickjsOverflows = (outcomes: Awaited<ReturnType<typeof runEverywhere>>) => {
      for (const quickjs of [outcomes.quickjs, outcomes['quickjs-inline'], outcomes['subprocess-quickjs']])
        expect(quickjs.error).toMatchObject({ code: 'RUNTIME_ERROR', name: 'RangeError', message: 'Maximum call stack size exceeded' })
    }
    for (const shape of ['array', 'object']) {
      const plain = agreed(await runEverywhere(sandboxes!, nest(shape, 1000), { tools: echo }), `${shape} nested 1000 deep`)
      expect(plain.ok).toBe(true)
      const tooDeep = await runEverywhere(sandboxes!, nest(shape, 1001), { tools: echo })
      expect(v8Only(tooDeep, `${shape} nested 1001 deep`).error).toMatchObject({
        code: 'RUNTIME_ERROR',
        name: 'TypeError',
        message: expect.stringContaining('nested deeper than 1000 levels'),
      })
      quickjsOverflows(tooDeep)
    }
    const walked = await runEverywhere(sandboxes!, nest('array', 1000).replace('let v = 0', 'let v = undefined'), { tools: echo })
    expect(v8Only(walked, 'an array nested 1000 deep around undefined').ok).toBe(true)
    quickjsOverflows(walked)
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
