/**
 * The driver through TanStack AI's own entry point: `createCodeModeTool` from the real
 * @tanstack/ai-code-mode, with real `toolDefinition` server tools, on every backend.
 */
import { createSandbox, type Sandbox } from '@cordon/core'
import { createIvmBackend } from '@cordon/backend-ivm'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
import { createSubprocessBackend } from '@cordon/backend-subprocess'
import type { SandboxBackend } from '@cordon/core/backend'
import { toolDefinition } from '@tanstack/ai'
import { createCodeModeTool, type ExecuteTypescriptOutput } from '@tanstack/ai-code-mode'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createCordonIsolateDriver, type CordonIsolateDriver } from '../src/index.js'

const BACKENDS: [string, () => SandboxBackend][] = [
  ['ivm', () => createIvmBackend()],
  ['quickjs', () => createQuickJSBackend()],
  ['subprocess', () => createSubprocessBackend()],
]

const getWeather = toolDefinition({
  name: 'getWeather',
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string() }),
}).server(async ({ city }) => ({ city, tempC: city.length }))

const failing = toolDefinition({
  name: 'failing',
  description: 'Always fails',
  inputSchema: z.object({}),
}).server(async () => {
  throw new Error('upstream is down')
})

describe.each(BACKENDS)('the cordon isolate driver on %s', (_, backend) => {
  let sandbox: Sandbox
  let driver: CordonIsolateDriver
  let run: (typescriptCode: string, timeout?: number) => Promise<ExecuteTypescriptOutput>

  beforeAll(() => {
    sandbox = createSandbox(backend())
    driver = createCordonIsolateDriver({ sandbox })
    run = async (typescriptCode, timeout) => {
      const tool = createCodeModeTool({ driver, tools: [getWeather, failing], ...(timeout === undefined ? {} : { timeout }) })
      const { execute } = tool as { execute?: (input: { typescriptCode: string }, context: undefined) => Promise<ExecuteTypescriptOutput> }
      if (execute === undefined) throw new Error('createCodeModeTool made a tool without execute')
      return execute({ typescriptCode }, undefined)
    }
  })
  afterAll(async () => {
    await driver.dispose()
    await sandbox.dispose()
  })

  it('runs TypeScript that calls tools, and returns the value and console output as TanStack formats them', async () => {
    const output = await run(
      [
        "const weather: { city: string; tempC: number } = await external_getWeather({ city: 'Paris' })",
        "console.log('got', weather, 3)",
        "console.info('info')",
        "console.warn('careful')",
        "console.error('bad', [1])",
        'return { weather, at: new Date(0) }',
      ].join('\n'),
    )
    expect(output).toEqual({
      success: true,
      result: { weather: { city: 'Paris', tempC: 5 }, at: '1970-01-01T00:00:00.000Z' },
      logs: ['got {"city":"Paris","tempC":5} 3', 'INFO: info', 'WARN: careful', 'ERROR: bad [1]'],
    })
  })

  it('reports what the guest threw, and tool failures the guest can catch', async () => {
    const thrown = await run("throw new TypeError('not a number')")
    expect(thrown).toMatchObject({ success: false, error: { name: 'TypeError', message: 'not a number' } })
    const caught = await run('try { await external_failing({}) } catch (e) { return e.message }')
    expect(caught).toMatchObject({ success: true, result: 'upstream is down' })
    const invalid = await run('return await external_getWeather({ town: 1 })')
    expect(invalid.success).toBe(false)
    expect(invalid.error?.message).toMatch(/Input validation failed for tool getWeather/)
  })

  it('ends a runaway loop at the timeout, and a wait nothing can end at once', async () => {
    const looping = await run('while (true) {}', 300)
    expect(looping).toMatchObject({ success: false, error: { name: 'TimeoutError' } })
    const stuck = await run('await new Promise(() => {})', 20_000)
    expect(stuck).toMatchObject({ success: false, error: { name: 'DeadlockError' } })
  })

  it('keeps globals from one execute to the next in a context, and refuses work once it is disposed', async () => {
    const context = await driver.createContext({ bindings: {}, timeout: 5_000 })
    expect(await context.execute('globalThis.count = 41')).toMatchObject({ success: true })
    expect(await context.execute('return count + 1')).toEqual({ success: true, value: 42, logs: [] })
    await context.dispose()
    expect(await context.execute('return 1')).toMatchObject({ success: false, error: { name: 'DisposedError' } })
  })

  it('returns values as JSON, as TanStack’s drivers do', async () => {
    expect(await run('return new Map([[1, 2]])')).toMatchObject({ success: true, result: {} })
    expect(await run('return 10n')).toMatchObject({ success: false, error: { name: 'TypeError' } })
  })
})

describe('a driver without a sandbox', () => {
  it('makes one over the backend it is given, and disposes it', async () => {
    const driver = createCordonIsolateDriver({ backend: createQuickJSBackend() })
    const context = await driver.createContext({ bindings: {} })
    expect(await context.execute('return 6 * 7')).toEqual({ success: true, value: 42, logs: [] })
    await context.dispose()
    await driver.dispose()
    await expect(driver.createContext({ bindings: {} })).rejects.toMatchObject({ code: 'DISPOSED' })
  })
})
