/**
 * The expectations of Cloudflare's own executor tests, run against the cordon executor on every
 * backend. Each case has the inputs and the expected outcome of a case in cloudflare/agents
 * (packages/codemode/src/tests/executor.test.ts and mcp.test.ts, at 247ebeb); only the executor's
 * construction differs: `createCordonExecutor({ sandbox })` for `new DynamicWorkerExecutor({ loader })`.
 * Where the outcome differs on purpose, the case says so and asserts cordon's outcome.
 *
 * Not carried over: ToolDispatcher's own tests (a Workers RPC class that this executor has no use
 * for), the snapshots of the MCP tools' descriptions (Cloudflare's text, not the executor's
 * doing), the check that openApiMcpServer picks the Workers-safe validator, and the truncation
 * tests that use a stub executor instead of one under test.
 */
import { createSandbox, type Sandbox } from '@cordon/core'
import { codeMcpServer, openApiMcpServer } from '@cloudflare/codemode/mcp'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { createCordonExecutor, type CordonExecutorOptions, type ProviderFunction, type ResolvedProvider } from '../src/index.js'
import { BACKENDS } from './support/backends.js'

const codemode = (fns: Record<string, ProviderFunction>): ResolvedProvider => ({ name: 'codemode', fns })

describe.each(BACKENDS)('Cloudflare’s executor expectations on %s', (_, backend) => {
  let sandbox: Sandbox
  const executorWith = (options: Omit<CordonExecutorOptions, 'sandbox' | 'backend'> = {}) => createCordonExecutor({ sandbox, ...options })

  beforeAll(() => {
    sandbox = createSandbox(backend())
  })
  afterAll(() => sandbox.dispose())

  describe('the executor', () => {
    it('returns the value of simple code', async () => {
      const result = await executorWith().execute('async () => 42', [codemode({})])
      expect(result.result).toBe(42)
      expect(result.error).toBeUndefined()
    })

    it('calls tool functions through the codemode namespace', async () => {
      const add = vi.fn(async (input: unknown) => (input as { a: number }).a + (input as { b: number }).b)
      const result = await executorWith().execute('async () => await codemode.add({ a: 3, b: 4 })', [codemode({ add })])
      expect(result.result).toBe(7)
      expect(add).toHaveBeenCalledWith({ a: 3, b: 4 })
    })

    it('keeps Uint8Array arguments and results', async () => {
      const accept = vi.fn(async (input: unknown) => {
        expect((input as { bytes: unknown }).bytes).toBeInstanceOf(Uint8Array)
        return (input as { bytes: Uint8Array }).bytes
      })
      const result = await executorWith().execute(
        'async () => { const bytes = await codemode.accept({ bytes: new Uint8Array([1, 2, 3]) }); return { isBytes: bytes instanceof Uint8Array, values: Array.from(bytes) } }',
        [codemode({ accept })],
      )
      expect(result.error).toBeUndefined()
      expect(result.result).toEqual({ isBytes: true, values: [1, 2, 3] })
    })

    it('keeps positional Uint8Array arguments and results', async () => {
      const accept = vi.fn(async (path: unknown, bytes: unknown) => {
        expect(path).toBe('/x.bin')
        expect(bytes).toBeInstanceOf(Uint8Array)
        expect(Array.from(bytes as Uint8Array)).toEqual([1, 2, 3])
        return bytes
      })
      const result = await executorWith().execute(
        'async () => { const bytes = await state.accept("/x.bin", new Uint8Array([1, 2, 3])); return { isBytes: bytes instanceof Uint8Array, values: Array.from(bytes) } }',
        [{ name: 'state', fns: { accept } }],
      )
      expect(result.error).toBeUndefined()
      expect(result.result).toEqual({ isBytes: true, values: [1, 2, 3] })
    })

    it('keeps ArrayBuffer arguments and results', async () => {
      const accept = vi.fn(async (input: unknown) => {
        const { buffer } = input as { buffer: ArrayBuffer }
        expect(buffer).toBeInstanceOf(ArrayBuffer)
        expect(Array.from(new Uint8Array(buffer))).toEqual([4, 5, 6])
        return buffer
      })
      const result = await executorWith().execute(
        'async () => { const buffer = await codemode.accept({ buffer: new Uint8Array([4, 5, 6]).buffer }); return { isBuffer: buffer instanceof ArrayBuffer, values: Array.from(new Uint8Array(buffer)) } }',
        [codemode({ accept })],
      )
      expect(result.error).toBeUndefined()
      expect(result.result).toEqual({ isBuffer: true, values: [4, 5, 6] })
    })

    it('sends only the visible bytes of a view', async () => {
      const accept = vi.fn(async (input: unknown) => {
        const { bytes } = input as { bytes: Uint8Array }
        expect(bytes).toBeInstanceOf(Uint8Array)
        expect(Array.from(bytes)).toEqual([20, 30])
        return bytes
      })
      const result = await executorWith().execute(
        'async () => { const view = new Uint8Array([10, 20, 30, 40]).subarray(1, 3); return Array.from(await codemode.accept({ bytes: view })) }',
        [codemode({ accept })],
      )
      expect(result.error).toBeUndefined()
      expect(result.result).toEqual([20, 30])
    })

    it('runs sequential tool calls', async () => {
      const getWeather = vi.fn(async () => ({ temp: 72 }))
      const searchWeb = vi.fn(async (input: unknown) => ({ results: [`news about ${(input as { query: string }).query}`] }))
      const result = await executorWith().execute(
        'async () => { const weather = await codemode.getWeather({}); const news = await codemode.searchWeb({ query: "temp " + weather.temp }); return { weather, news } }',
        [codemode({ getWeather, searchWeb })],
      )
      expect(result.result).toEqual({ weather: { temp: 72 }, news: { results: ['news about temp 72'] } })
      expect(getWeather).toHaveBeenCalledTimes(1)
      expect(searchWeb).toHaveBeenCalledTimes(1)
    })

    it('DIFFERS: names of Cloudflare’s harness internals are ordinary provider names here', async () => {
      // Upstream: `Provider name "__stringifyForCodemode" is reserved` (and the same for
      // `__dispatchers`, `__connectors`): names of its generated Worker. This executor has no such
      // globals, so they are free.
      for (const name of ['__stringifyForCodemode', '__dispatchers', '__connectors']) {
        expect(await executorWith().execute('async () => 42', [{ name, fns: {} }])).toEqual({ result: 42, logs: [] })
      }
    })

    it('refuses provider names that shadow the guest’s own globals', async () => {
      for (const name of ['Promise', 'setTimeout', 'Error', 'console']) {
        const result = await executorWith().execute('async () => 42', [{ name, fns: {} }])
        expect(result.error).toBe(`Provider name "${name}" is reserved`)
      }
    })

    it('reports what the code throws', async () => {
      expect((await executorWith().execute('async () => { throw new Error("boom"); }', [codemode({})])).error).toBe('boom')
    })

    it('reports what a tool function throws', async () => {
      const fail = vi.fn(async () => {
        throw new Error('tool error')
      })
      expect((await executorWith().execute('async () => await codemode.fail({})', [codemode({ fail })])).error).toBe('tool error')
    })

    it('runs concurrent tool calls (Promise.all)', async () => {
      const slow = async (input: unknown) => ({ id: (input as { id: number }).id })
      const result = await executorWith().execute(
        'async () => await Promise.all([codemode.slow({ id: 1 }), codemode.slow({ id: 2 }), codemode.slow({ id: 3 })])',
        [codemode({ slow })],
      )
      expect(result.result).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }])
    })

    it('captures console output', async () => {
      const result = await executorWith().execute('async () => { console.log("hello"); console.warn("careful"); return "done"; }', [
        codemode({}),
      ])
      expect(result.result).toBe('done')
      expect(result.logs).toContain('hello')
      expect(result.logs).toContain('[warn] careful')
    })

    it('handles backticks and template literals in the code', async () => {
      expect((await executorWith().execute('async () => { return `hello ${"world"}`; }', [codemode({})])).result).toBe('hello world')
    })

    it('has no network by default', async () => {
      const result = await executorWith().execute('async () => { const r = await fetch("https://example.com"); return r.status; }', [
        codemode({}),
      ])
      expect(result.error).toBeDefined()
    })

    it('keeps the closures of tool functions on the host', async () => {
      const secret = 'api-key-123'
      const result = await executorWith().execute('async () => await codemode.getSecret({})', [
        codemode({ getSecret: async () => ({ key: secret }) }),
      ])
      expect(result.result).toEqual({ key: 'api-key-123' })
    })

    it('makes the given modules importable', async () => {
      const executor = executorWith({ modules: { 'helpers.js': 'export function greet(name) { return "hello " + name; }' } })
      const result = await executor.execute('async () => { const { greet } = await import("helpers.js"); return greet("world"); }', [
        codemode({}),
      ])
      expect(result.result).toBe('hello world')
      expect(result.error).toBeUndefined()
    })

    it('runs as usual with a module named executor.js', async () => {
      const result = await executorWith({ modules: { 'executor.js': 'export default class Evil {}' } }).execute('async () => 1 + 1', [
        codemode({}),
      ])
      expect(result.result).toBe(2)
      expect(result.error).toBeUndefined()
    })

    it('normalizes fenced code', async () => {
      const result = await executorWith().execute('```js\n1 + 1\n```', [codemode({})])
      expect(result.result).toBe(2)
      expect(result.error).toBeUndefined()
    })

    it('normalizes a bare expression', async () => {
      const result = await executorWith().execute('42', [codemode({})])
      expect(result.result).toBe(42)
      expect(result.error).toBeUndefined()
    })

    it('works without providers', async () => {
      const result = await executorWith().execute('async () => 42', [])
      expect(result.result).toBe(42)
      expect(result.error).toBeUndefined()
    })

    it('calls a tool by the name it is given', async () => {
      const listIssues = vi.fn(async () => [{ id: 1, title: 'bug' }])
      const result = await executorWith().execute('async () => await codemode.github_list_issues({})', [
        codemode({ github_list_issues: listIssues }),
      ])
      expect(result.result).toEqual([{ id: 1, title: 'bug' }])
      expect(listIssues).toHaveBeenCalledWith({})
    })

    it('times out', async () => {
      const result = await executorWith({ timeout: 100 }).execute(
        "async () => { await new Promise(r => setTimeout(r, 5000)); return 'done'; }",
        [codemode({})],
      )
      expect(result.error).toContain('timed out')
    })
  })

  describe('multiple providers', () => {
    it('exposes tools under a named provider', async () => {
      const echo = vi.fn(async (input: unknown) => ({ echoed: (input as { msg: string }).msg }))
      const result = await executorWith().execute('async () => await myns.echo({ msg: "hello" })', [{ name: 'myns', fns: { echo } }])
      expect(result.error).toBeUndefined()
      expect(result.result).toEqual({ echoed: 'hello' })
      expect(echo).toHaveBeenCalledWith({ msg: 'hello' })
    })

    it('gives each provider its own namespace', async () => {
      const storeGet = vi.fn(async () => ({ from: 'store' }))
      const cacheGet = vi.fn(async () => ({ from: 'cache' }))
      const result = await executorWith().execute('async () => ({ a: await store.get({}), b: await cache.get({}) })', [
        { name: 'store', fns: { get: storeGet } },
        { name: 'cache', fns: { get: cacheGet } },
      ])
      expect(result.error).toBeUndefined()
      expect(result.result).toEqual({ a: { from: 'store' }, b: { from: 'cache' } })
      expect(storeGet).toHaveBeenCalledTimes(1)
      expect(cacheGet).toHaveBeenCalledTimes(1)
    })

    it('lets a named provider and codemode work together', async () => {
      const add = vi.fn(async (input: unknown) => (input as { a: number }).a + (input as { b: number }).b)
      const ping = vi.fn(async (input: unknown) => ({ echoed: (input as { msg: unknown }).msg }))
      const result = await executorWith().execute(
        'async () => { const sum = await codemode.add({ a: 3, b: 4 }); const pong = await echo.ping({ msg: sum }); return { sum, pong }; }',
        [
          { name: 'codemode', fns: { add } },
          { name: 'echo', fns: { ping } },
        ],
      )
      expect(result.error).toBeUndefined()
      expect(result.result).toEqual({ sum: 7, pong: { echoed: 7 } })
      expect(add).toHaveBeenCalledWith({ a: 3, b: 4 })
    })

    it('reports provider errors', async () => {
      const doSomething = async () => {
        throw new Error('provider failed')
      }
      expect(
        (await executorWith().execute('async () => await broken.doSomething({})', [{ name: 'broken', fns: { doSomething } }])).error,
      ).toBe('provider failed')
    })

    it('refuses duplicate provider names', async () => {
      const result = await executorWith().execute('async () => 1', [
        { name: 'dup', fns: {} },
        { name: 'dup', fns: {} },
      ])
      expect(result.error).toContain('Duplicate')
    })

    it('refuses tool names that sanitize to the same name', async () => {
      const result = await executorWith().execute('async () => 1', [
        codemode({ 'foo-bar': async () => 'hyphen', foo_bar: async () => 'underscore' }),
      ])
      expect(result.error).toContain('both sanitize to')
    })
  })

  describe('provider preludes', () => {
    const stepPrelude = String.raw`
      codemode.step = async (seq, fn) => {
        const d = await codemode.decide(seq);
        if (d.kind === "replay") return d.result;
        const value = await fn();
        await codemode.record(value);
        return value;
      };`

    it('lets a prelude define a function that shadows the host functions', async () => {
      const decide = vi.fn(async (seq: unknown) => ({ kind: 'execute', seq: Number(seq) }))
      const record = vi.fn(async () => true)
      const result = await executorWith().execute(
        'async () => { let ran = 0; const v = await codemode.step(0, async () => { ran++; return 21 * 2; }); return { v, ran }; }',
        [{ name: 'codemode', fns: { decide, record }, prelude: stepPrelude }],
      )
      expect(result.error).toBeUndefined()
      expect(result.result).toEqual({ v: 42, ran: 1 })
      expect(decide).toHaveBeenCalledWith(0)
      expect(record).toHaveBeenCalledWith(42)
    })

    it('replays a step without running its closure', async () => {
      const fns = { decide: async () => ({ kind: 'replay', result: 'cached' }), record: async () => true }
      const result = await executorWith().execute(
        'async () => { let ran = false; const v = await codemode.step(0, async () => { ran = true; return "fresh"; }); return { v, ran }; }',
        [{ name: 'codemode', fns, prelude: stepPrelude }],
      )
      expect(result.error).toBeUndefined()
      expect(result.result).toEqual({ v: 'cached', ran: false })
    })
  })

  describe('codeMcpServer', () => {
    function upstream(): McpServer {
      const server = new McpServer({ name: 'test-tools', version: '1.0.0' })
      server.registerTool('add', { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
        content: [{ type: 'text', text: String(a + b) }],
      }))
      server.registerTool('greet', { description: 'Generate a greeting', inputSchema: { name: z.string() } }, async ({ name }) => ({
        content: [{ type: 'text', text: `Hello, ${name}!` }],
      }))
      return server
    }

    async function callCode(code: string, extend?: (server: McpServer) => void) {
      const server = upstream()
      extend?.(server)
      const client = await connect(await codeMcpServer({ server, executor: executorWith() }))
      try {
        return await client.callTool({ name: 'code', arguments: { code } })
      } finally {
        await client.close()
      }
    }

    it('exposes a single code tool', async () => {
      const client = await connect(await codeMcpServer({ server: upstream(), executor: executorWith() }))
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['code'])
      await client.close()
    })

    it('calls upstream add(10, 32)', async () => {
      expect(JSON.parse(text(await callCode('async () => { const r = await codemode.add({ a: 10, b: 32 }); return r; }')))).toBe(42)
    })

    it('chains add then greet', async () => {
      const code =
        'async () => { const sum = await codemode.add({ a: 5, b: 3 }); return await codemode.greet({ name: "Result is " + sum }); }'
      expect(text(await callCode(code))).toBe('Hello, Result is 8!')
    })

    it('reports a throw', async () => {
      expect(text(await callCode("async () => { throw new Error('test error'); }"))).toBe('Error: test error')
    })

    it('returns undefined and null', async () => {
      expect(text(await callCode('async () => { return undefined; }'))).toBe('undefined')
      expect(text(await callCode('async () => { return null; }'))).toBe('null')
    })

    it('unwraps a JSON array from a single text content', async () => {
      const result = await callCode(
        'async () => { const items = await codemode.get_items({}); return items.filter(i => i.id === 2); }',
        (server) =>
          server.registerTool('get_items', { description: 'Return a JSON array', inputSchema: {} }, async () => ({
            content: [
              {
                type: 'text' as const,
                text: JSON.stringify([
                  { id: 1, name: 'a' },
                  { id: 2, name: 'b' },
                ]),
              },
            ],
          })),
      )
      expect(JSON.parse(text(result))).toEqual([{ id: 2, name: 'b' }])
    })

    it('turns an upstream isError into an exception, catchable in the code', async () => {
      const failing = (server: McpServer) =>
        server.registerTool('fail', { description: 'Always fails', inputSchema: {} }, async () => ({
          content: [{ type: 'text' as const, text: 'something went wrong' }],
          isError: true,
        }))
      const result = await callCode('async () => { return await codemode.fail({}); }', failing)
      expect(text(result)).toBe('Error: something went wrong')
      expect(result.isError).toBe(true)
      const caught = await callCode(
        'async () => { try { await codemode.fail({}); return "no"; } catch (e) { return "caught: " + e.message; } }',
        failing,
      )
      expect(text(caught)).toBe('caught: something went wrong')
    })

    it('joins several text contents into one string', async () => {
      const result = await callCode('async () => await codemode.multi_text({})', (server) =>
        server.registerTool('multi_text', { description: 'Return multiple text items', inputSchema: {} }, async () => ({
          content: [
            { type: 'text' as const, text: 'line one' },
            { type: 'text' as const, text: 'line two' },
          ],
        })),
      )
      expect(text(result)).toBe('line one\nline two')
    })

    it('unwraps a JSON object from a single text content', async () => {
      const code =
        'async () => { const user = await codemode.get_user({ id: 7 }); return user.name + " is " + (user.active ? "active" : "inactive"); }'
      const result = await callCode(code, (server) =>
        server.registerTool('get_user', { description: 'Return a user object', inputSchema: { id: z.number() } }, async ({ id }) => ({
          content: [{ type: 'text' as const, text: JSON.stringify({ id, name: 'Alice', active: true }) }],
        })),
      )
      expect(text(result)).toBe('Alice is active')
    })

    it('reports a tool the upstream server does not have', async () => {
      expect(text(await callCode('async () => { return await codemode.nonexistent({}); }'))).toBe('Error: Tool "nonexistent" not found')
    })
  })

  describe('openApiMcpServer', () => {
    const sampleSpec = {
      openapi: '3.0.0',
      paths: {
        '/users': {
          get: { summary: 'List users', tags: ['users'], parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }] },
          post: { summary: 'Create user', tags: ['users'] },
        },
        '/users/{id}': { get: { summary: 'Get user by ID', tags: ['users'] } },
      },
    }
    const schemaAt = (path: string) => `spec.paths["${path}"].get.responses["200"].content["application/json"].schema`
    const responding = (ref: string) => ({ get: { responses: { '200': { content: { 'application/json': { schema: { $ref: ref } } } } } } })

    async function call(
      tool: 'search' | 'execute',
      code: string,
      options: { spec?: Record<string, unknown>; request?: Parameters<typeof openApiMcpServer>[0]['request'] } = {},
    ) {
      const server = openApiMcpServer({
        spec: options.spec ?? sampleSpec,
        executor: executorWith(),
        request: options.request ?? (async () => ({})),
      })
      const client = await connect(server)
      try {
        return await client.callTool({ name: tool, arguments: { code } })
      } finally {
        await client.close()
      }
    }

    it('exposes search and execute', async () => {
      const client = await connect(openApiMcpServer({ spec: sampleSpec, executor: executorWith(), request: async () => ({}) }))
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['execute', 'search'])
      await client.close()
    })

    it('searches the spec', async () => {
      expect(
        JSON.parse(text(await call('search', 'async () => { const spec = await codemode.spec(); return Object.keys(spec.paths); }'))),
      ).toEqual(['/users', '/users/{id}'])
      expect(
        text(await call('search', "async () => { const spec = await codemode.spec(); return spec.paths['/users'].get.summary; }")),
      ).toBe('List users')
    })

    it('gives the request callback the MCP context of the originating call, apart for concurrent calls', async () => {
      let arrivals = 0
      let release: () => void = () => {}
      const both = new Promise<void>((resolve) => (release = resolve))
      const seen = new Map<string, string | number>()
      const server = openApiMcpServer({
        spec: sampleSpec,
        executor: executorWith(),
        request: async (options, context) => {
          seen.set(options.path, context.requestId)
          if (++arrivals === 2) release()
          await both
          return { path: options.path, requestId: context.requestId, hasSignal: context.signal instanceof AbortSignal }
        },
      })
      const client = await connect(server)
      const results = await Promise.all(
        ['/a', '/b'].map((path) =>
          client.callTool({
            name: 'execute',
            arguments: { code: `async () => await codemode.request({ method: "GET", path: "${path}" })` },
          }),
        ),
      )
      expect(seen.get('/a')).not.toBe(seen.get('/b'))
      expect(results.map((r) => JSON.parse(text(r)) as unknown)).toEqual([
        { path: '/a', requestId: seen.get('/a'), hasSignal: true },
        { path: '/b', requestId: seen.get('/b'), hasSignal: true },
      ])
      await client.close()
    })

    it('lets the request callback elicit input for the originating call', async () => {
      const server: McpServer = openApiMcpServer({
        spec: sampleSpec,
        executor: executorWith(),
        request: async (options, context) =>
          server.server.elicitInput(
            {
              message: `Allow ${options.method} ${options.path}?`,
              requestedSchema: { type: 'object', properties: { approved: { type: 'boolean' } }, required: ['approved'] },
            },
            { relatedRequestId: context.requestId, signal: context.signal },
          ),
      })
      const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
      await server.connect(serverTransport)
      const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } })
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        expect(request.params.message).toBe('Allow DELETE /users/123?')
        return { action: 'accept', content: { approved: true } }
      })
      await client.connect(clientTransport)
      const result = await client.callTool({
        name: 'execute',
        arguments: { code: 'async () => await codemode.request({ method: "DELETE", path: "/users/123" })' },
      })
      expect(JSON.parse(text(result))).toEqual({ action: 'accept', content: { approved: true } })
      await client.close()
    })

    it('proxies codemode.request() to the host, and reports its errors', async () => {
      const request = async (options: { method: string; path: string }) => ({
        status: 200,
        method: options.method,
        path: options.path,
        data: [{ id: 1, name: 'Alice' }],
      })
      const ok = await call('execute', 'async () => await codemode.request({ method: "GET", path: "/users" })', { request })
      expect(JSON.parse(text(ok))).toEqual({ status: 200, method: 'GET', path: '/users', data: [{ id: 1, name: 'Alice' }] })
      const unauthorized = async () => {
        throw new Error('unauthorized')
      }
      expect(
        text(await call('execute', 'async () => await codemode.request({ method: "GET", path: "/secret" })', { request: unauthorized })),
      ).toBe('Error: unauthorized')
    })

    it('resolves $refs in the sandbox: internal, external, missing, circular, shared', async () => {
      const refs = {
        openapi: '3.0.0',
        info: { title: 'Refs', version: '1' },
        paths: {
          '/items': responding('#/components/schemas/ItemList'),
          '/external': responding('schemas/external.json#/Thing'),
          '/missing': responding('#/components/schemas/Missing'),
          '/nodes': responding('#/components/schemas/Node'),
          '/a': responding('#/components/schemas/Shared'),
          '/b': responding('#/components/schemas/Shared'),
        },
        components: {
          schemas: {
            ItemList: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } },
            Node: { type: 'object', properties: { child: { $ref: '#/components/schemas/Node' } } },
            Shared: { type: 'object', properties: { id: { type: 'string' } } },
          },
        },
      }
      const code = `async () => {
        const spec = await codemode.spec();
        const a = ${schemaAt('/a')};
        const b = ${schemaAt('/b')};
        a.properties.id.type = "number";
        return {
          items: ${schemaAt('/items')},
          external: ${schemaAt('/external')},
          missing: String(${schemaAt('/missing')}),
          circular: ${schemaAt('/nodes')}.properties.child,
          sameObject: a === b,
          bType: b.properties.id.type,
        };
      }`
      expect(JSON.parse(text(await call('search', code, { spec: refs })))).toEqual({
        items: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } },
        external: { $ref: 'schemas/external.json#/Thing' },
        missing: 'undefined',
        circular: { $circular: '#/components/schemas/Node' },
        sameObject: false,
        bType: 'string',
      })
    })

    it('keeps the truncation metadata of oversized results', async () => {
      const result = text(await call('search', "async () => 'x'.repeat(25000)"))
      expect(result).toContain('--- TRUNCATED ---')
      expect(result).toContain('Response was ~6,250 tokens')
    })

    it('resolves a large spec inside the sandbox: 2,000 operations sharing one 200-property schema', async () => {
      // The spec's $ref resolver structuredClones the schema for every use.
      const bigSchema = {
        type: 'object',
        properties: Object.fromEntries(
          Array.from({ length: 200 }, (_, i) => [`field_${i}`, { type: 'string', description: 'x'.repeat(100) }]),
        ),
      }
      const large = {
        openapi: '3.1.0',
        info: { title: 'Synthetic', version: '1' },
        paths: Object.fromEntries(
          Array.from({ length: 2000 }, (_, i) => [
            `/items/${i}`,
            { get: { operationId: `getItem${i}`, ...responding('#/components/schemas/BigSchema').get } },
          ]),
        ),
        components: { schemas: { BigSchema: bigSchema } },
      }
      expect(
        text(
          await call('search', 'async () => { const spec = await codemode.spec(); return Object.keys(spec.paths).length; }', {
            spec: large,
          }),
        ),
      ).toBe('2000')
    })
  })
})

async function connect(server: McpServer): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
  await server.connect(serverTransport)
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  await client.connect(clientTransport)
  return client
}

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as { type: string; text: string }[])[0]!.text
}
