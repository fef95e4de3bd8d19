/**
 * The executor behind Cloudflare's MCP servers (`@cloudflare/codemode/mcp`): `codeMcpServer` over a
 * real upstream McpServer and `openApiMcpServer` over a spec, both driven by the MCP SDK's client
 * through an in-memory transport, on every backend.
 */
import { createSandbox, type Sandbox } from '@cordon/core'
import { codeMcpServer, openApiMcpServer } from '@cloudflare/codemode/mcp'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createCordonExecutor, type CordonExecutor } from '../src/index.js'
import { BACKENDS } from './support/backends.js'

function upstreamServer(): McpServer {
  const server = new McpServer({ name: 'upstream', version: '1.0.0' })
  server.registerTool('add', { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }))
  server.registerTool('get-user', { description: 'A user by id', inputSchema: { id: z.number() } }, async ({ id }) => ({
    content: [{ type: 'text', text: JSON.stringify({ id, name: 'Ada' }) }],
  }))
  server.registerTool('fail', { description: 'Always fails', inputSchema: {} }, async () => ({
    content: [{ type: 'text', text: 'something went wrong' }],
    isError: true,
  }))
  return server
}

const spec = {
  openapi: '3.0.0',
  info: { title: 'Users', version: '1' },
  paths: {
    '/users': {
      get: {
        summary: 'List users',
        responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Users' } } } } },
      },
    },
    '/users/{id}': { get: { summary: 'Get a user' } },
  },
  components: { schemas: { Users: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } } } },
}

async function connect(server: McpServer): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
  await server.connect(serverTransport)
  const client = new Client({ name: 'test', version: '1.0.0' })
  await client.connect(clientTransport)
  return client
}

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as { type: string; text: string }[])[0]!.text
}

describe.each(BACKENDS)('Cloudflare’s MCP servers over the cordon executor on %s', (_, backend) => {
  let sandbox: Sandbox
  let executor: CordonExecutor
  const clients: Client[] = []

  beforeAll(() => {
    sandbox = createSandbox(backend())
    executor = createCordonExecutor({ sandbox, timeout: 5_000 })
  })
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()))
  })
  afterAll(() => sandbox.dispose())

  async function codeClient(): Promise<Client> {
    const client = await connect(await codeMcpServer({ server: upstreamServer(), executor }))
    clients.push(client)
    return client
  }

  it('codeMcpServer: one code tool whose code calls the upstream tools', async () => {
    const client = await codeClient()
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['code'])
    const result = await client.callTool({
      name: 'code',
      arguments: {
        code: `async () => {
          const sum = await codemode.add({ a: 10, b: 32 })
          const user = await codemode.get_user({ id: sum })
          console.log('looked up', user.id)
          return user.name + ' #' + user.id
        }`,
      },
    })
    expect(result.isError).toBeFalsy()
    expect(text(result)).toBe('Ada #42')
  })

  it('codeMcpServer: errors of the code and of the upstream tools are tool errors', async () => {
    const client = await codeClient()
    const thrown = await client.callTool({ name: 'code', arguments: { code: "async () => { throw new Error('test error') }" } })
    expect(thrown).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Error: test error' }] })
    const upstream = await client.callTool({ name: 'code', arguments: { code: 'async () => await codemode.fail({})' } })
    expect(upstream).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Error: something went wrong' }] })
    const caught = await client.callTool({
      name: 'code',
      arguments: { code: 'async () => { try { await codemode.fail({}) } catch (e) { return "caught: " + e.message } }' },
    })
    expect(text(caught)).toBe('caught: something went wrong')
    const missing = await client.callTool({ name: 'code', arguments: { code: 'async () => await codemode.nonexistent({})' } })
    expect(text(missing)).toBe('Error: Tool "nonexistent" not found')
  })

  it('codeMcpServer: raw code (a fence, a bare expression) and a timeout', async () => {
    const client = await codeClient()
    expect(text(await client.callTool({ name: 'code', arguments: { code: '```js\nawait codemode.add({ a: 1, b: 2 })\n```' } }))).toBe('3')
    const slow = await codeMcpServer({ server: upstreamServer(), executor: createCordonExecutor({ sandbox, timeout: 300 }) })
    const slowClient = await connect(slow)
    clients.push(slowClient)
    const looping = await slowClient.callTool({ name: 'code', arguments: { code: 'async () => { while (true) {} }' } })
    expect(looping.isError).toBe(true)
    expect(text(looping)).toMatch(/^Error: Execution timed out/)
  })

  it('openApiMcpServer: search reads the spec with $refs resolved; execute calls the host’s request function', async () => {
    const requests: unknown[] = []
    const server = openApiMcpServer({
      spec,
      executor,
      request: async (options) => {
        requests.push(options)
        return { status: 200, body: [{ id: 'u1' }] }
      },
    })
    const client = await connect(server)
    clients.push(client)
    const search = await client.callTool({
      name: 'search',
      arguments: {
        code: "async () => { const s = await codemode.spec(); return [Object.keys(s.paths), s.paths['/users'].get.responses['200'].content['application/json'].schema.type] }",
      },
    })
    expect(JSON.parse(text(search))).toEqual([['/users', '/users/{id}'], 'array'])
    const execute = await client.callTool({
      name: 'execute',
      arguments: {
        code: 'async () => { const r = await codemode.request({ method: "GET", path: "/users", query: { limit: 2 } }); return r.body[0].id }',
      },
    })
    expect(text(execute)).toBe('u1')
    expect(requests).toEqual([{ method: 'GET', path: '/users', query: { limit: 2 } }])
  })
})
