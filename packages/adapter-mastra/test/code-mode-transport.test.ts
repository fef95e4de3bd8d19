/**
 * The transport through Mastra's own entry point: `createCodeMode` from the real @mastra/core,
 * with real `createTool` tools, on every backend. The tool runs as Mastra runs it, with an
 * execution context whose `observe` records what Mastra logs from the transport's hooks.
 */
import { createSandbox, type Sandbox } from '@cordon/core'
import { createIvmBackend } from '@cordon/backend-ivm'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
import { createSubprocessBackend } from '@cordon/backend-subprocess'
import type { SandboxBackend } from '@cordon/core/backend'
import { createCodeMode, createTool, noopObserve, type CodeModeToolResult, type ToolObserve } from '@mastra/core/tools'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createCordonCodeModeTransport, type CordonCodeModeTransport } from '../src/index.js'

const BACKENDS: [string, () => SandboxBackend][] = [
  ['ivm', () => createIvmBackend()],
  ['quickjs', () => createQuickJSBackend()],
  ['subprocess', () => createSubprocessBackend()],
]

class QuotaError extends Error {
  override name = 'QuotaError'
}

const getWeather = createTool({
  id: 'getWeather',
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, tempC: city.length, at: new Date(0) }),
})

const lookupUser = createTool({
  id: 'lookup-user',
  description: 'Always over quota',
  inputSchema: z.object({ id: z.number() }),
  execute: async () => {
    throw new QuotaError('quota exceeded for today')
  },
})

/** Answers once three calls are waiting at once: a program that made them one by one would never finish. */
function meetingTool() {
  let arrived = 0
  let everyone: () => void = () => {}
  const allThere = new Promise<void>((resolve) => (everyone = resolve))
  return createTool({
    id: 'meet',
    description: 'Waits for the two other callers',
    inputSchema: z.object({ who: z.string() }),
    execute: async ({ who }) => {
      if (++arrived === 3) everyone()
      await allThere
      return `${who} met the others`
    },
  })
}

/** Never answers; tells the test when it was called. */
function hangingTool(called: () => void) {
  return createTool({
    id: 'hang',
    description: 'Never answers',
    inputSchema: z.object({}),
    execute: () => {
      called()
      return new Promise<never>(() => {})
    },
  })
}

type CodeModeTool = ReturnType<typeof createCodeMode>['tool']

/** The tool's execute as Mastra's agents call it, with `observe` and an optional abort signal. */
async function execute(tool: CodeModeTool, code: string, context: { observe?: ToolObserve; abortSignal?: AbortSignal } = {}) {
  if (tool.execute === undefined) throw new Error('createCodeMode made a tool without execute')
  return (await tool.execute({ code }, { observe: noopObserve, ...context })) as CodeModeToolResult
}

describe.each(BACKENDS)('the cordon code-mode transport on %s', (_, backend) => {
  let sandbox: Sandbox
  let transport: CordonCodeModeTransport
  let run: (code: string, timeout?: number) => Promise<CodeModeToolResult>

  beforeAll(() => {
    sandbox = createSandbox(backend())
    transport = createCordonCodeModeTransport({ sandbox })
    run = (code, timeout) => {
      const { tool } = createCodeMode({ tools: { getWeather, lookupUser }, ...(timeout === undefined ? {} : { timeout }) }, transport)
      return execute(tool, code)
    }
  })
  afterAll(async () => {
    await transport.dispose()
    await sandbox.dispose()
  })

  it('runs TypeScript that calls a tool, without a sandbox in the config, and returns the value as JSON', async () => {
    const output = await run(
      [
        "const weather: { city: string; tempC: number } = await external_getWeather({ city: 'Paris' })",
        'return { weather, seen: new Set([1]) }',
      ].join('\n'),
    )
    expect(output).toEqual({
      success: true,
      result: { weather: { city: 'Paris', tempC: 5, at: '1970-01-01T00:00:00.000Z' }, seen: {} },
      logs: [],
    })
    // What JSON cannot carry fails as it does in Mastra: with JSON.stringify's TypeError.
    expect(await run('return 10n')).toMatchObject({ success: false, error: { name: 'TypeError' } })
  })

  it('returns console output as Mastra formats it: strings as they are, the rest as JSON, every level', async () => {
    const output = await run(
      [
        "console.log('got', { a: 1 }, [1, 'x'], 3, null, undefined)",
        "console.info('info')",
        "console.warn('careful')",
        'console.error(new Date(0))',
        "console.debug('debug too')",
      ].join('\n'),
    )
    expect(output.logs).toEqual(['got {"a":1} [1,"x"] 3 null ', 'info', 'careful', '"1970-01-01T00:00:00.000Z"', 'debug too'])
  })

  it('reports what the program threw, with its name, message and line', async () => {
    expect(await run("const n: number = 1\nthrow new TypeError('not a number')")).toEqual({
      success: false,
      error: { name: 'TypeError', message: 'not a number', line: 2 },
      logs: [],
    })
    expect(await run("throw 'plain text'")).toMatchObject({ success: false, error: { message: 'plain text' } })
    expect(await run('return {')).toMatchObject({ success: false, error: { name: 'SyntaxError', line: 1 } })
  })

  it("gives the program a tool's error with its name and message, to catch or to end it", async () => {
    const caught = await run('try { await external_lookup_user({ id: 1 }) } catch (e) { return [e.name, e.message, e instanceof Error] }')
    expect(caught).toMatchObject({ success: true, result: ['QuotaError', 'quota exceeded for today', true] })
    const uncaught = await run('await external_lookup_user({ id: 1 })')
    expect(uncaught).toMatchObject({ success: false, error: { name: 'QuotaError', message: 'quota exceeded for today' } })
    // Mastra's validation of the tool's input reaches the program as an error too.
    const invalid = await run('return await external_getWeather({ city: 7 })')
    expect(invalid.success).toBe(false)
    expect(invalid.error?.message).toMatch(/getWeather/)
  })

  it('runs calls made with Promise.all at the same time', async () => {
    const { tool } = createCodeMode({ tools: { meet: meetingTool() }, timeout: 10_000 }, transport)
    const output = await execute(tool, "return await Promise.all(['a', 'b', 'c'].map((who) => external_meet({ who })))")
    expect(output).toEqual({ success: true, result: ['a met the others', 'b met the others', 'c met the others'], logs: [] })
  })

  it('ends a runaway loop and a tool that never answers at the timeout, keeping the logs', async () => {
    const looping = await run("console.log('before'); while (true) {}", 1_000)
    expect(looping).toMatchObject({ success: false, error: { name: 'TimeoutError' }, logs: ['before'] })
    const { tool } = createCodeMode({ tools: { hang: hangingTool(() => {}) }, timeout: 300 }, transport)
    expect(await execute(tool, 'await external_hang({})')).toMatchObject({ success: false, error: { name: 'TimeoutError' } })
  })

  it('ends a wait nothing can end at once, without waiting for the timeout', async () => {
    expect(await run('await new Promise(() => {})', 25_000)).toMatchObject({ success: false, error: { name: 'DeadlockError' } })
  })

  it("stops the program when Mastra's abort signal fires", async () => {
    const controller = new AbortController()
    const { tool } = createCodeMode({ tools: { hang: hangingTool(() => controller.abort()) }, timeout: 25_000 }, transport)
    const output = await execute(tool, "console.log('calling'); await external_hang({})", { abortSignal: controller.signal })
    expect(output).toMatchObject({ success: false, error: { name: 'AbortError' }, logs: ['calling'] })
    const spinning = await execute(tool, 'while (true) {}', { abortSignal: AbortSignal.abort() })
    expect(spinning).toMatchObject({ success: false, error: { name: 'AbortError' } })
  })

  it("tells Mastra's tracing about every call: the tool, its arguments, its duration and its error", async () => {
    const logged: { level: string; message: string; data?: Record<string, unknown> }[] = []
    const observe: ToolObserve = {
      span: async (_name, fn) => fn(),
      log: (level, message, data) => void logged.push({ level, message, ...(data === undefined ? {} : { data }) }),
    }
    const { tool } = createCodeMode({ tools: { getWeather, lookupUser } }, transport)
    const output = await execute(
      tool,
      "await external_getWeather({ city: 'Oslo' }); try { await external_lookup_user({ id: 2 }) } catch {}; return 'done'",
      { observe },
    )
    expect(output).toMatchObject({ success: true, result: 'done' })
    expect(logged).toEqual([
      { level: 'info', message: 'code-mode external call', data: { tool: 'getWeather', args: { city: 'Oslo' } } },
      { level: 'info', message: 'code-mode external result', data: { tool: 'getWeather', durationMs: expect.any(Number) } },
      { level: 'info', message: 'code-mode external call', data: { tool: 'lookup-user', args: { id: 2 } } },
      { level: 'error', message: 'code-mode external result', data: { tool: 'lookup-user', durationMs: expect.any(Number) } },
    ])
  })

  it('calls the hooks directly given, with the error the program saw, and a call cut off by the end of the run', async () => {
    const calls: unknown[][] = []
    const controller = new AbortController()
    const output = await transport.run({
      program: 'await external_known({ n: 1 }); await external_never({})',
      toolIds: ['known', 'never'],
      dispatch: async (tool, args) => {
        if (tool === 'known') return { args }
        controller.abort()
        return new Promise(() => {})
      },
      timeout: 25_000,
      abortSignal: controller.signal,
      onExternalCall: (tool, args) => calls.push(['call', tool, args]),
      onExternalResult: (tool, _durationMs, error) => calls.push(['result', tool, error]),
    })
    expect(output).toMatchObject({ success: false, error: { name: 'AbortError' } })
    expect(calls).toEqual([
      ['call', 'known', { n: 1 }],
      ['result', 'known', undefined],
      ['call', 'never', {}],
      ['result', 'never', expect.objectContaining({ message: expect.stringMatching(/aborted/) })],
    ])
  })

  it("caps createCodeMode's timeout at maxTimeout", async () => {
    const capped = createCordonCodeModeTransport({ sandbox, maxTimeout: 300 })
    const { tool } = createCodeMode({ tools: { getWeather }, timeout: 60_000 }, capped)
    expect(await execute(tool, 'while (true) {}')).toMatchObject({ success: false, error: { name: 'TimeoutError' } })
  })
})

describe('a transport without a sandbox', () => {
  it('makes one over the backend it is given, caps memory, and disposes it', async () => {
    const transport = createCordonCodeModeTransport({ backend: createQuickJSBackend(), memoryLimit: 16 })
    const { tool } = createCodeMode({ tools: { getWeather } }, transport)
    expect(await execute(tool, 'return 6 * 7')).toEqual({ success: true, result: 42, logs: [] })
    const hungry = await execute(tool, "const parts = []; while (true) parts.push('x'.repeat(1 << 20) + parts.length)")
    expect(hungry).toMatchObject({ success: false, error: { name: 'MemoryLimitError' } })
    await transport.dispose()
    await expect(execute(tool, 'return 1')).rejects.toMatchObject({ code: 'DISPOSED' })
  })

  it("keeps the given sandbox's limits, and reports a call over maxToolCalls to the hooks", async () => {
    const sandbox = createSandbox(createQuickJSBackend(), { maxToolCalls: 2 })
    const transport = createCordonCodeModeTransport({ sandbox })
    const calls: unknown[][] = []
    const output = await transport.run({
      program: 'for (let i = 0; i < 5; i++) await external_count({ i })',
      toolIds: ['count'],
      dispatch: async () => 1,
      timeout: 25_000,
      onExternalCall: (tool, args) => calls.push(['call', tool, args]),
      onExternalResult: (tool, _durationMs, error) => calls.push(['result', tool, error === undefined ? undefined : 'error']),
    })
    expect(output).toMatchObject({ success: false, error: { name: 'ToolCallLimitError' } })
    expect(calls).toEqual([
      ['call', 'count', { i: 0 }],
      ['result', 'count', undefined],
      ['call', 'count', { i: 1 }],
      ['result', 'count', undefined],
      ['call', 'count', { i: 2 }],
      ['result', 'count', 'error'],
    ])
    await sandbox.dispose()
  })

  it("runs on @cordon/select's choice when given neither", async () => {
    const transport = createCordonCodeModeTransport()
    const { tool } = createCodeMode({ tools: { getWeather } }, transport)
    expect(await execute(tool, "return (await external_getWeather({ city: 'Rome' })).tempC")).toMatchObject({ success: true, result: 4 })
    await transport.dispose()
  })
})
