/**
 * The executor behind Cloudflare's `createCodeTool` for TanStack AI (`@cloudflare/codemode/tanstack-ai`),
 * with real `toolDefinition` server tools, on every backend.
 */
import { createSandbox, type Sandbox } from '@cordon/core'
import { toolDefinition } from '@tanstack/ai'
import { createCodeTool, tanstackTools } from '@cloudflare/codemode/tanstack-ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createCordonExecutor, type CordonExecutor } from '../src/index.js'
import { BACKENDS } from './support/backends.js'

const getWeather = toolDefinition({
  name: 'get-weather',
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string() }),
}).server(async ({ city }) => ({ city, tempC: city.length }))

const checksum = toolDefinition({
  name: 'checksum',
  description: 'Sums the bytes of a file and hands them back reversed',
  inputSchema: z.object({ bytes: z.instanceof(Uint8Array) }),
}).server(async ({ bytes }) => ({ sum: bytes.reduce((a, b) => a + b, 0), reversed: Uint8Array.from(bytes).reverse() }))

const failing = toolDefinition({
  name: 'failing',
  description: 'Always fails',
  inputSchema: z.object({}),
}).server(async () => {
  throw new Error('upstream is down')
})

type CodeOutput = { result: unknown; logs?: string[] }

describe.each(BACKENDS)('createCodeTool (TanStack AI) over the cordon executor on %s', (_, backend) => {
  let sandbox: Sandbox
  let executor: CordonExecutor
  let run: (code: string) => Promise<CodeOutput>
  let description: string

  beforeAll(() => {
    sandbox = createSandbox(backend())
    executor = createCordonExecutor({ sandbox, timeout: 5_000 })
    const tool = createCodeTool({
      tools: [tanstackTools([getWeather, checksum, failing]), tanstackTools([getWeather], 'weather')],
      executor,
    })
    description = tool.description
    const { execute } = tool as { execute?: (input: { code: string }) => Promise<CodeOutput> }
    if (execute === undefined) throw new Error('createCodeTool made a tool without execute')
    run = (code) => execute({ code })
  })
  afterAll(() => sandbox.dispose())

  it('describes the tools under the names the executor gives them', () => {
    expect(description).toContain('declare const codemode')
    expect(description).toContain('get_weather: (input: GetWeatherInput) => Promise<GetWeatherOutput>;')
    expect(description).toContain('declare const weather')
  })

  it('runs the model’s code with tool calls in two namespaces, and returns the value and console lines', async () => {
    const output = await run(
      `async () => {
        const paris = await codemode.get_weather({ city: 'Paris' })
        const rome = await weather.get_weather({ city: 'Rome' })
        console.log('got', paris.tempC, rome.tempC)
        console.warn('careful')
        return { paris, rome }
      }`,
    )
    expect(output).toEqual({
      result: { paris: { city: 'Paris', tempC: 5 }, rome: { city: 'Rome', tempC: 4 } },
      logs: ['got 5 4', '[warn] careful'],
    })
  })

  it('carries binary values to a tool and back', async () => {
    const output = await run(
      `async () => {
        const { sum, reversed } = await codemode.checksum({ bytes: new Uint8Array([1, 2, 250]) })
        return { sum, reversed, isBytes: reversed instanceof Uint8Array }
      }`,
    )
    expect(output.result).toEqual({ sum: 253, reversed: new Uint8Array([250, 2, 1]), isBytes: true })
  })

  it('fails the tool call with the error and the console output, as Cloudflare’s runCode reports it', async () => {
    await expect(run('async () => { console.log("before"); return await codemode.failing({}) }')).rejects.toThrow(
      'Code execution failed: upstream is down\n\nConsole output:\nbefore',
    )
    const caught = await run('async () => { try { await codemode.failing({}) } catch (e) { return e.message } }')
    expect(caught).toEqual({ result: 'upstream is down' })
  })

  it('ends a runaway loop at the deadline, and runs executions side by side', async () => {
    const loop = createCodeTool({ tools: [], executor: createCordonExecutor({ sandbox, timeout: 300 }) })
    const execute = (loop as { execute?: (input: { code: string }) => Promise<CodeOutput> }).execute!
    await expect(execute({ code: 'async () => { while (true) {} }' })).rejects.toThrow(/Code execution failed: Execution timed out/)
    const outputs = await Promise.all(['Oslo', 'Lima', 'Kyiv'].map((city) => run(`codemode.get_weather({ city: '${city}' })`)))
    expect(outputs.map((o) => o.result)).toEqual([
      { city: 'Oslo', tempC: 4 },
      { city: 'Lima', tempC: 4 },
      { city: 'Kyiv', tempC: 4 },
    ])
  })
})
