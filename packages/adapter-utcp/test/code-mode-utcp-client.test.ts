/**
 * The client through its public API, with tools registered the UTCP way (a manual over the
 * direct-call protocol, see direct-call.ts), on every backend.
 */
import { createSandbox, type Sandbox } from '@cordon/core'
import { createIvmBackend } from '@cordon/backend-ivm'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
import { createSubprocessBackend } from '@cordon/backend-subprocess'
import type { SandboxBackend } from '@cordon/core/backend'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { CodeModeUtcpClient } from '../src/index.js'
import { addFunctionToUtcpDirectCall } from './direct-call.js'

const BACKENDS: [string, () => SandboxBackend][] = [
  ['ivm', () => createIvmBackend()],
  // On the host's thread: in worker threads a paused synchronous call leaves its reply to the
  // worker's next run (a bug in the QuickJS backend; see the README).
  ['quickjs', () => createQuickJSBackend()],
  ['subprocess', () => createSubprocessBackend()],
]

/** How many times each tool's function ran: a replayed call must not run it again. */
const calls = new Map<string, number>()
function counted<A extends unknown[], R>(name: string, fn: (...args: A) => R): (...args: A) => R {
  return (...args) => {
    calls.set(name, (calls.get(name) ?? 0) + 1)
    return fn(...args)
  }
}

const TOOLS = {
  'get-price': {
    description: 'The price of an item, in cents',
    inputs: { type: 'object', properties: { item: { type: 'string', description: 'Item name' } }, required: ['item'] },
    outputs: { type: 'object', properties: { item: { type: 'string' }, cents: { type: 'integer' } }, required: ['item', 'cents'] },
    run: counted('get-price', async (item: string) => ({ item, cents: item.length * 100 })),
  },
  fail: {
    description: 'Always fails',
    inputs: { type: 'object', properties: { reason: { type: 'string' } } },
    outputs: {},
    run: counted('fail', async (reason: string) => {
      throw new Error(reason)
    }),
  },
  httpFail: {
    description: 'Fails as an HTTP client does',
    inputs: { type: 'object', properties: {} },
    outputs: {},
    run: async () => {
      throw Object.assign(new Error('Request failed with status code 404'), { response: { data: { error: 'no such item' } } })
    },
  },
  slow: {
    description: 'Answers after a while',
    inputs: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
    outputs: { type: 'string' },
    run: async (ms: number) => new Promise((resolve) => setTimeout(() => resolve('slept'), ms)),
  },
  echo: {
    description: 'Its argument back',
    inputs: { type: 'object', properties: { value: {} } },
    outputs: {},
    run: counted('echo', (value: unknown) => ({ value, at: new Date(0) })),
  },
}

beforeAll(() => {
  // UtcpClient announces every registration and call on console.log.
  vi.spyOn(console, 'log').mockImplementation(() => {})
  addFunctionToUtcpDirectCall('shopManual', () => ({
    utcp_version: '1.0.0',
    manual_version: '1.0.0',
    tools: Object.entries(TOOLS).map(([name, tool]) => ({
      name,
      description: tool.description,
      inputs: tool.inputs,
      outputs: tool.outputs,
      tags: ['shop'],
      tool_call_template: { call_template_type: 'direct-call', callable_name: `shop.${name}` },
    })),
  }))
  for (const [name, tool] of Object.entries(TOOLS)) addFunctionToUtcpDirectCall(`shop.${name}`, tool.run)
})

async function clientOver(options: Parameters<typeof CodeModeUtcpClient.create>[2]): Promise<CodeModeUtcpClient> {
  const client = await CodeModeUtcpClient.create(undefined, null, options)
  // A hyphenated manual name: UTCP registers it as my_shop, and the tool get-price is my_shop.get_price.
  const registered = await client.registerManual({ name: 'my-shop', call_template_type: 'direct-call', callable_name: 'shopManual' })
  expect(registered.success).toBe(true)
  return client
}

describe.each(BACKENDS)('CodeModeUtcpClient on %s', (_, backend) => {
  let client: CodeModeUtcpClient

  beforeAll(async () => {
    client = await clientOver({ backend: backend() })
  })
  afterAll(async () => {
    await client.close()
  })

  it('runs a chain of synchronous tool calls, each tool called once, and returns the value as JSON', async () => {
    calls.clear()
    const { result, logs } = await client.callToolChain(
      [
        'const items: string[] = ["tea", "coffee", "milk"]',
        'const prices = items.map((item) => my_shop.get_price({ item }))',
        'const total = prices.reduce((sum, p) => sum + p.cents, 0)',
        'const again = await my_shop.get_price({ item: "cocoa" })',
        'return { prices, total, again: again.cents, echoed: my_shop.echo({ value: total }), nothing: undefined }',
      ].join('\n'),
    )
    expect(logs).toEqual([])
    expect(result).toEqual({
      prices: [
        { item: 'tea', cents: 300 },
        { item: 'coffee', cents: 600 },
        { item: 'milk', cents: 400 },
      ],
      total: 1300,
      again: 500,
      echoed: { value: 1300, at: '1970-01-01T00:00:00.000Z' },
    })
    expect(Object.fromEntries(calls)).toEqual({ 'get-price': 4, echo: 1 })
    expect((await client.callToolChain('const x = 1')).result).toBeNull()
  })

  it('returns console lines as UTCP formats them, each once however often the program was replayed', async () => {
    const { result, logs } = await client.callToolChain(
      [
        "console.log('start', 1, { a: [1, 2] })",
        "const p = my_shop.get_price({ item: 'tea' })",
        "console.info('price', p.cents)",
        "console.warn('careful')",
        "console.error('bad', null, undefined)",
        "console.debug('fine')",
        'return p.cents',
      ].join('\n'),
    )
    expect(result).toBe(300)
    expect(logs).toEqual([
      'start 1 {\n  "a": [\n    1,\n    2\n  ]\n}',
      '[INFO] price 300',
      '[WARN] careful',
      '[ERROR] bad null undefined',
      'fine',
    ])
  })

  it('reports what the program threw, with the lines it logged first', async () => {
    const thrown = await client.callToolChain("console.log('before')\nmy_shop.echo({ value: 1 })\nthrow new TypeError('not a number')")
    expect(thrown).toEqual({
      result: null,
      // The column is the engine's: where the throw statement or the error's construction starts.
      logs: ['before', expect.stringMatching(/^\[ERROR\] Code execution failed: TypeError: not a number \(line 3, column \d+\)$/)],
    })
    const syntax = await client.callToolChain('const invalid syntax here')
    expect(syntax.result).toBeNull()
    expect(syntax.logs).toEqual([expect.stringMatching(/^\[ERROR\] Code execution failed: SyntaxError: .+ \(line 1, column \d+\)$/)])
  })

  it('throws a tool failure in the program, where it can be caught, with an HTTP error body after the message', async () => {
    calls.clear()
    const caught = await client.callToolChain(
      [
        'const seen = []',
        'for (const reason of ["one", "two"]) {',
        '  try { my_shop.fail({ reason }) } catch (e) { seen.push(e.name + ": " + e.message) }',
        '}',
        'try { my_shop.httpFail() } catch (e) { seen.push(e.message) }',
        'return seen',
      ].join('\n'),
    )
    expect(caught).toEqual({
      result: ['Error: one', 'Error: two', 'Request failed with status code 404 Error data: {"error":"no such item"}'],
      logs: [],
    })
    expect(calls.get('fail')).toBe(2)
    const uncaught = await client.callToolChain("my_shop.fail({ reason: 'upstream is down' })")
    expect(uncaught.result).toBeNull()
    expect(uncaught.logs).toEqual([expect.stringMatching(/^\[ERROR\] Code execution failed: Error: upstream is down/)])
  })

  it('ends a runaway program, or one waiting on a slow tool, at the timeout', async () => {
    const looping = await client.callToolChain("console.log('looping')\nwhile (true) {}", 500)
    expect(looping).toEqual({
      result: null,
      logs: ['looping', '[ERROR] Code execution failed: TIMEOUT: the run took longer than timeoutMs (500 ms)'],
    })
    const waiting = await client.callToolChain("console.log('calling')\nreturn my_shop.slow({ ms: 20000 })", 500)
    expect(waiting).toEqual({
      result: null,
      logs: ['calling', '[ERROR] Code execution failed: TIMEOUT: the run took longer than timeoutMs (500 ms)'],
    })
    // The client is healthy afterwards.
    expect(await client.callToolChain('return 1 + 1')).toEqual({ result: 2, logs: [] })
  })

  it('ends a program that outgrows memoryLimit', async () => {
    const { result, logs } = await client.callToolChain(
      'const chunks = []\nwhile (true) chunks.push("x".repeat(1 << 16) + chunks.length)',
      20_000,
      16,
    )
    expect(result).toBeNull()
    expect(logs).toEqual([expect.stringMatching(/^\[ERROR\] Code execution failed: MEMORY_LIMIT: .*memoryMb \(16 MB\)/)])
  })

  it('gives the program the tools’ declarations, and replays Date and Math.random identically', async () => {
    const { result } = await client.callToolChain(
      [
        'const n = Math.random()',
        'const t = Date.now()',
        'const echoed = my_shop.echo({ value: { n, t } })',
        'return {',
        '  same: echoed.value.n === n && echoed.value.t === t,',
        '  interfaces: typeof __interfaces === "string" && __interfaces.includes("declare namespace my_shop"),',
        '  byUtcpName: __getToolInterface("my_shop.get-price"),',
        '  byGuestName: __getToolInterface("my_shop.get_price") === __getToolInterface("my_shop.get-price"),',
        '  missing: __getToolInterface("nope.nothing"),',
        '}',
      ].join('\n'),
    )
    expect(result).toMatchObject({ same: true, interfaces: true, byGuestName: true, missing: null })
    expect(result.byUtcpName).toContain('function get_price(args: get_priceInput): get_priceOutput;')
  })
})

describe('where the chains run', () => {
  it('on a sandbox you made with durable keys, which the client leaves open', async () => {
    const sandbox: Sandbox = createSandbox(createQuickJSBackend(), {
      durable: { keys: ['a secret of at least 32 bytes, for tests'] },
    })
    const client = await clientOver({ sandbox })
    expect(await client.callToolChain("return my_shop.get_price({ item: 'tea' }).cents")).toEqual({ result: 300, logs: [] })
    await client.close()
    expect(await sandbox.run('1 + 1')).toMatchObject({ ok: true, value: 2 })
    await sandbox.dispose()
  })

  it('says what is missing on a sandbox without durable keys', async () => {
    const sandbox = createSandbox(createQuickJSBackend())
    const client = await clientOver({ sandbox })
    expect(await client.callToolChain('return 6 * 7')).toEqual({ result: 42, logs: [] })
    const paused = await client.callToolChain("return my_shop.get_price({ item: 'tea' })")
    expect(paused.result).toBeNull()
    expect(paused.logs).toEqual([
      expect.stringMatching(/UNSUPPORTED: tool my_shop\.get_price paused the run, but this sandbox has no durable keys/),
    ])
    await client.close()
    await sandbox.dispose()
  })

  it('on the backend @cordon/select picks when given none, ended by close()', async () => {
    const client = await clientOver({})
    expect(await client.callToolChain("return my_shop.get_price({ item: 'milk' }).cents")).toEqual({ result: 400, logs: [] })
    await client.close()
    expect(await client.callToolChain('return 1')).toEqual({
      result: null,
      logs: ['[ERROR] Code execution failed: DISPOSED: CodeModeUtcpClient was disposed'],
    })
  })

  it('refuses a sandbox and a backend together', async () => {
    const sandbox = createSandbox(createQuickJSBackend())
    await expect(CodeModeUtcpClient.create(undefined, null, { sandbox, backend: createQuickJSBackend() })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    })
    await sandbox.dispose()
  })
})
