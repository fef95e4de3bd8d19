import { request } from 'node:http'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  connectHttp,
  DEMO_UPSTREAM,
  eventually,
  progressBeforeResponse,
  recordMessages,
  runJavaScript,
  runServer,
  startHttpServer,
  writeConfig,
  type HttpServer,
} from './helpers.js'

// What only the HTTP transport has: the token, sessions kept apart, per-client limits, the
// stateless mode. The tool behaviour itself is in the shared tables (run-javascript,
// declarations), which run over both transports.

const CONFIG = { mcpServers: { demo: DEMO_UPSTREAM }, backend: 'quickjs', limits: { timeoutMs: 5_000 } }

/** A raw HTTP exchange, for what the SDK client would never send (no token, a foreign Host). */
function rawPost(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let text = ''
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
}

describe('cordon-mcp --http', () => {
  let server: HttpServer
  const clients: Client[] = []
  const client = async (token = server.token) => {
    const connected = await connectHttp(server.url, token)
    clients.push(connected)
    return connected
  }

  beforeAll(async () => {
    server = await startHttpServer(['--config', writeConfig(CONFIG), '--max-runs-per-client', '1'])
  })
  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()))
    await server?.stop()
  })

  it('serves /mcp on the loopback address, with the port it bound', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    expect(server.stderr()).toContain('bearer token required')
  })

  it('answers 401 without the bearer token or with a wrong one', async () => {
    const none = await rawPost(server.url, {}, INITIALIZE)
    expect(none.status).toBe(401)
    expect(none.headers['www-authenticate']).toMatch(/^Bearer /)
    expect(JSON.parse(none.body)).toMatchObject({ error: { message: expect.stringContaining('CORDON_MCP_TOKEN') } })

    const wrong = await rawPost(server.url, { authorization: `Bearer ${server.token}x` }, INITIALIZE)
    expect(wrong.status).toBe(401)
    const notBearer = await rawPost(server.url, { authorization: `Basic ${server.token}` }, INITIALIZE)
    expect(notBearer.status).toBe(401)

    await expect(connectHttp(server.url, 'not-the-token')).rejects.toThrow(/401|Unauthorized/)
    const right = await rawPost(server.url, { authorization: `Bearer ${server.token}` }, INITIALIZE)
    expect(right.status).toBe(200)
  })

  it('refuses a Host header that is not a loopback host (DNS rebinding), and paths other than /mcp', async () => {
    const rebound = await rawPost(server.url, { authorization: `Bearer ${server.token}`, host: 'attacker.example' }, INITIALIZE)
    expect(rebound.status).toBe(403)
    const elsewhere = await rawPost(server.url.replace('/mcp', '/other'), { authorization: `Bearer ${server.token}` }, INITIALIZE)
    expect(elsewhere.status).toBe(404)
  })

  it('keeps serving other clients while one runs into TIMEOUT with while (true) {}', async () => {
    const [looper, other] = await Promise.all([client(), client()])
    const [looping, tools, sum] = await Promise.all([
      runJavaScript(looper, 'while (true) {}', { timeoutMs: 500 }),
      other.listTools(),
      runJavaScript(other, '(await demo.add({ a: 1, b: 2 })).sum'),
    ])
    expect(looping.isError).toBe(true)
    expect(looping.texts[0]).toMatch(/^TIMEOUT: /)
    expect(tools.tools.map((tool) => tool.name)).toContain('run_javascript')
    expect(sum.texts[0]).toBe('3')
    expect((await runJavaScript(looper, '"after the timeout"')).texts[0]).toBe('"after the timeout"')
  })

  it('keeps two clients apart: sessions, cancellation and the runs-in-flight limit are per client', async () => {
    const [a, b] = await Promise.all([client(), client()])
    const sessionA = (a.transport as StreamableHTTPClientTransport).sessionId
    const sessionB = (b.transport as StreamableHTTPClientTransport).sessionId
    expect(sessionA).toBeDefined()
    expect(sessionB).toBeDefined()
    expect(sessionA).not.toBe(sessionB)

    // A fills its one run slot (--max-runs-per-client 1) with a call that waits on the upstream.
    const cancelA = new AbortController()
    const slowA = a.callTool({ name: 'run_javascript', arguments: { code: 'await demo.slow({ ms: 40000 })' } }, undefined, {
      signal: cancelA.signal,
    })
    await eventually(() => server.stderr().includes('[demo] slow: waiting 40000 ms'), "client A's upstream call to start")

    // A's second run is refused; B is not affected by A's limit.
    const refused = await runJavaScript(a, '1')
    expect(refused.isError).toBe(true)
    expect(refused.texts[0]).toMatch(/^TOO_MANY_RUNS: this client already has 1 run_javascript calls in flight/)
    const fromB = await runJavaScript(b, 'globalThis.mine = "b"; (await demo.add({ a: 40, b: 2 })).sum')
    expect(fromB.texts[0]).toBe('42')

    // A cancelling its request ends only A's run.
    cancelA.abort()
    await expect(slowA).rejects.toThrow()
    await eventually(() => server.stderr().includes('[demo] slow: cancelled before 40000 ms'), "the upstream to see A's cancellation")
    // A's slot frees when its run has ended on the server, which may come a moment after the
    // upstream saw the cancellation (a loaded machine): until then A is refused, as it should be.
    let mine = await runJavaScript(a, 'typeof globalThis.mine')
    for (let tries = 0; tries < 100 && /^TOO_MANY_RUNS/.test(mine.texts[0] ?? ''); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      mine = await runJavaScript(a, 'typeof globalThis.mine')
    }
    expect(mine.texts[0]).toBe('"undefined"')

    // A session id reaches only its own session; one that is not live is 404, and ending A leaves B serving.
    const unknown = await rawPost(
      server.url,
      { authorization: `Bearer ${server.token}`, 'mcp-session-id': 'not-a-session', 'mcp-protocol-version': '2025-06-18' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    )
    expect(unknown.status).toBe(404)
    await (a.transport as StreamableHTTPClientTransport).terminateSession()
    const afterEnd = await rawPost(
      server.url,
      { authorization: `Bearer ${server.token}`, 'mcp-session-id': sessionA!, 'mcp-protocol-version': '2025-06-18' },
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
    )
    expect(afterEnd.status).toBe(404)
    expect((await runJavaScript(b, '"B still served"')).texts[0]).toBe('"B still served"')
  })
})

describe('cordon-mcp --http --max-sessions 1', () => {
  let server: HttpServer
  beforeAll(async () => {
    server = await startHttpServer(['--config', writeConfig(CONFIG), '--max-sessions', '1'])
  })
  afterAll(() => server?.stop())

  it('refuses a session over the cap with 503, and takes it once the first one ended', async () => {
    const first = await connectHttp(server.url, server.token)
    await expect(connectHttp(server.url, server.token)).rejects.toThrow(/503|Too many sessions/)
    await (first.transport as StreamableHTTPClientTransport).terminateSession()
    await first.close()
    const second = await connectHttp(server.url, server.token)
    expect((await runJavaScript(second, '1 + 1')).texts[0]).toBe('2')
    await second.close()
  })
})

describe('cordon-mcp --http --stateless', () => {
  let server: HttpServer
  beforeAll(async () => {
    server = await startHttpServer(['--config', writeConfig(CONFIG), '--stateless'])
  })
  afterAll(() => server?.stop())

  it('serves each request on its own, with no session id', async () => {
    const client = await connectHttp(server.url, server.token)
    try {
      expect((client.transport as StreamableHTTPClientTransport).sessionId).toBeUndefined()
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('run_javascript')
      const result = await runJavaScript(
        client,
        'const [x, y] = await Promise.all([demo.add({ a: 1, b: 2 }), demo.add({ a: 3, b: 4 })])\nx.sum + y.sum',
      )
      expect(result.texts[0]).toBe('10')
      const looping = await runJavaScript(client, 'while (true) {}', { timeoutMs: 300 })
      expect(looping.texts[0]).toMatch(/^TIMEOUT: /)
      expect((await runJavaScript(client, '"next"')).texts[0]).toBe('"next"')
    } finally {
      await client.close()
    }
    expect(server.stderr()).toContain('stateless Streamable HTTP at')
  })

  it("sends progress notifications on the request's own response stream", async () => {
    const client = await connectHttp(server.url, server.token)
    try {
      const wire = recordMessages(client)
      try {
        await client.callTool(
          { name: 'run_javascript', arguments: { code: 'console.log("hi"); (await demo.add({ a: 1, b: 2 })).sum' } },
          undefined,
          { onprogress: () => {} },
        )
      } finally {
        wire.stop()
      }
      const { progress, responded } = progressBeforeResponse(wire.messages)
      expect(responded).toBe(true)
      expect(progress.map(({ message }) => message)).toEqual([
        'hi',
        expect.stringMatching(/^calling demo\.add /),
        expect.stringMatching(/^demo\.add answered in /),
      ])
    } finally {
      await client.close()
    }
  })

  it('still requires the token', async () => {
    expect((await rawPost(server.url, {}, INITIALIZE)).status).toBe(401)
  })
})

describe('cordon-mcp --http on the command line', () => {
  it('starts without a token on a loopback address', async () => {
    const server = await startHttpServer([], { token: null })
    const client = await connectHttp(server.url, undefined)
    expect((await runJavaScript(client, '6 * 7')).texts[0]).toBe('42')
    await client.close()
    await server.stop()
    expect(server.stderr()).toContain('no token (loopback only)')
  })

  it('refuses to listen beyond loopback without CORDON_MCP_TOKEN (exit 1)', async () => {
    const run = await runServer(['--http', '0.0.0.0:0'])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('0.0.0.0 is not a loopback address')
    expect(run.stderr).toContain('set CORDON_MCP_TOKEN')
  })

  it.each([
    [['--http', 'localhost'], '--http expects <host>:<port>'],
    [['--http', '127.0.0.1:70000'], '--http expects <host>:<port>'],
    [['--http', '[nope]:80'], 'is not an IPv6 address'],
    [['--stateless'], '--stateless only applies with --http'],
    [['--http', '127.0.0.1:0', '--max-runs-per-client', '0'], '--max-runs-per-client expects a whole number of at least 1, got "0"'],
  ])('refuses %j with exit 2 and says why', async (args, message) => {
    const run = await runServer(args)
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(message)
    expect(run.stderr).toContain('Usage: cordon-mcp')
  })
})
