import { createRequire } from 'node:module'
import { afterAll, describe, expect, it } from 'vitest'
import { createSandbox, type ToolSet } from '../src/index.js'
import { createVmBackend } from '../../conformance/test/fakes/vm-backend.js'

const sandbox = createSandbox(createVmBackend())
afterAll(() => sandbox.dispose())

/** The guest's view of each call: the tool's answer, or the TypeError's message. */
async function callEach(tools: ToolSet, calls: string[]): Promise<unknown> {
  const code = `const out = []
for (const call of [${calls.join(', ')}]) {
  try { out.push(await call()) } catch (e) { out.push(e.constructor.name + ': ' + e.message) }
}
return out`
  const r = await sandbox.run(code, { tools })
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`)
  return r.value
}

/** Whether this process has loaded Ajv's compiler (not only its small runtime helpers). */
function ajvCompilerLoaded(): boolean {
  return Object.keys(createRequire(import.meta.url).cache).some((file) => /[\\/]ajv[\\/]dist[\\/](core|compile[\\/])/.test(file))
}

describe('tool input schemas', () => {
  // First in this file: the other checks below may compile a schema on this thread.
  it('are compiled without loading Ajv on the host thread, and validate there', async () => {
    const tools: ToolSet = {
      'math.add': {
        inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
        execute: ({ a, b }: { a: number; b: number }) => a + b,
      },
    }
    expect(
      await callEach(tools, ['() => math.add({ a: 1, b: 2 })', "() => math.add({ a: 'x', b: 2 })", '() => math.add({ a: 1 })']),
    ).toEqual([
      3,
      'TypeError: Invalid arguments for tool math.add: args/a must be number',
      "TypeError: Invalid arguments for tool math.add: args must have required property 'b'",
    ])
    expect(ajvCompilerLoaded()).toBe(false)
  })

  it('use what the compiled validators need: unicode lengths, deep equality, patterns, $ref, draft-07', async () => {
    const tools: ToolSet = {
      'k.text': {
        inputSchema: { type: 'object', properties: { s: { type: 'string', minLength: 2, pattern: '^a' } } },
        execute: () => 'ok',
      },
      'k.set': { inputSchema: { type: 'array', uniqueItems: true }, execute: () => 'ok' },
      'k.same': { inputSchema: { const: { mode: 'x' } }, execute: () => 'ok' },
      'k.ref': {
        inputSchema: { $defs: { n: { type: 'integer' } }, type: 'object', properties: { n: { $ref: '#/$defs/n' } } },
        execute: () => 'ok',
      },
      'k.old': {
        inputSchema: {
          $schema: 'http://json-schema.org/draft-07/schema#',
          definitions: { n: { type: 'integer' } },
          items: { $ref: '#/definitions/n' },
        },
        execute: () => 'ok',
      },
    }
    expect(
      await callEach(tools, [
        "() => k.text({ s: 'a😀' })", // two code points: ucs2length, not .length
        "() => k.text({ s: 'a' })",
        "() => k.text({ s: 'ba' })",
        '() => k.set([{ a: 1 }, { a: 2 }])',
        '() => k.set([{ a: 1 }, { a: 1 }])',
        "() => k.same({ mode: 'x' })",
        "() => k.same({ mode: 'y' })",
        '() => k.ref({ n: 1.5 })',
        '() => k.old([1, 2.5])',
      ]),
    ).toEqual([
      'ok',
      'TypeError: Invalid arguments for tool k.text: args/s must NOT have fewer than 2 characters',
      'TypeError: Invalid arguments for tool k.text: args/s must match pattern "^a"',
      'ok',
      'TypeError: Invalid arguments for tool k.set: args must NOT have duplicate items (items ## 0 and 1 are identical)',
      'ok',
      'TypeError: Invalid arguments for tool k.same: args must be equal to constant',
      'TypeError: Invalid arguments for tool k.ref: args/n must be integer',
      'TypeError: Invalid arguments for tool k.old: args/1 must be integer',
    ])
  })

  it('that are not valid JSON Schema fail the run INVALID_OPTIONS, naming the tool', async () => {
    const r = sandbox.run('1', { tools: { 'bad.schema': { inputSchema: { type: 'no-such-type' }, execute: () => 1 } } })
    await expect(r).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringMatching(
        /^tool "bad\.schema": inputSchema is not a valid JSON Schema: schema is invalid: data\/type must be/,
      ) as unknown,
    })
  })

  it('that are not JSON (a cycle) are compiled on this thread, and refused as before', async () => {
    const schema: Record<string, unknown> = { type: 'object' }
    schema.properties = { self: schema }
    const r = sandbox.run('1', { tools: { 'c.n': { inputSchema: schema, execute: () => 'ok' } } })
    await expect(r).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringMatching(/^tool "c\.n": inputSchema is not a valid JSON Schema/) as unknown,
    })
  })
})
