import { createHash, randomUUID, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isLoopback, TOKEN_ENV, type HttpOptions } from './cli-args.js'
import { log } from './log.js'
import { createRunGate, type RunGate } from './run-gate.js'

export const MCP_PATH = '/mcp'

export interface HttpServeOptions extends HttpOptions {
  /** A fresh MCP server for one client (a session, or one request in stateless mode). */
  newServer(gate: RunGate): McpServer
}

export interface RunningHttpServer {
  /** Where clients connect: `http://<host>:<port>/mcp` with the port actually bound. */
  url: string
  close(): Promise<void>
}

interface Session {
  transport: StreamableHTTPServerTransport
  server: McpServer
  lastSeen: number
  requestsInFlight: number
}

/**
 * cordon-mcp over MCP's Streamable HTTP transport (the SDK's), on node:http.
 *
 * - Every request needs `Authorization: Bearer <CORDON_MCP_TOKEN>` when a token is set
 *   (compared as SHA-256 digests with `timingSafeEqual`, so neither the token's length nor
 *   its content leaks through timing).
 * - On a loopback address the `Host` header must name a loopback host, so a web page the user
 *   opens cannot reach the server through DNS rebinding.
 * - Stateful (default): each MCP session gets its own McpServer and run gate; requests carry
 *   the session id the SDK's transport issued and reach only that session's transport. The
 *   upstream connections and the sandbox are shared: they hold no client state (each run is
 *   a fresh sandbox run). Sessions are capped and closed when idle.
 * - Stateless (`--stateless`): each POST gets a fresh McpServer and transport, closed when the
 *   response ends, so any replica behind a load balancer can serve any request.
 */
export async function serveHttp(options: HttpServeOptions): Promise<RunningHttpServer> {
  const expectedDigest = options.token === undefined ? undefined : sha256(options.token)
  const checkHost = isLoopback(options.host)
  const sessions = new Map<string, Session>()
  /** Sessions whose initialize request is being handled: they count against maxSessions too. */
  let opening = 0
  const statelessGate = createRunGate(options.maxRunsPerClient)

  const httpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`HTTP ${req.method} ${req.url} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
      if (!res.headersSent) reply(res, 500, -32603, 'Internal server error')
      else res.end()
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname
    if (path !== MCP_PATH) return reply(res, 404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}`)
    if (checkHost && !loopbackHostHeader(req.headers.host)) {
      return reply(
        res,
        403,
        -32000,
        `Forbidden: Host "${req.headers.host ?? ''}" is not a loopback host (this server listens on ${options.host})`,
      )
    }
    if (expectedDigest !== undefined && !bearerMatches(req.headers.authorization, expectedDigest)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="cordon-mcp"')
      return reply(res, 401, -32001, `Unauthorized: send "Authorization: Bearer <token>" with the token in the server's ${TOKEN_ENV}`)
    }
    if (options.stateless) return handleStateless(req, res)
    return handleStateful(req, res)
  }

  async function handleStateless(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // No session: no server-to-client stream (GET) and nothing to delete.
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST')
      return reply(res, 405, -32000, 'Method not allowed: this server is stateless (--stateless), send each message with POST')
    }
    const server = options.newServer(statelessGate)
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    // Closing the server aborts a run still in flight when the client went away.
    res.on('close', () => void server.close().catch(() => undefined))
    await server.connect(transport)
    await transport.handleRequest(req, res)
  }

  async function handleStateful(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = req.headers['mcp-session-id']
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId)
      if (session === undefined)
        return reply(res, 404, -32001, 'Session not found: it ended or never existed; start a new one with initialize')
      session.lastSeen = Date.now()
      session.requestsInFlight++
      try {
        await session.transport.handleRequest(req, res)
      } finally {
        session.requestsInFlight--
        session.lastSeen = Date.now()
      }
      return
    }
    if (req.method !== 'POST')
      return reply(res, 400, -32000, 'Bad request: no Mcp-Session-Id header; start a session with an initialize POST')
    if (sessions.size + opening >= options.maxSessions) {
      res.setHeader('Retry-After', '5')
      return reply(
        res,
        503,
        -32000,
        `Too many sessions: this server holds at most ${options.maxSessions} (--max-sessions); close one or retry later`,
      )
    }
    const server = options.newServer(createRunGate(options.maxRunsPerClient))
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, server, lastSeen: Date.now(), requestsInFlight: 0 }),
    })
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
    }
    opening++
    try {
      await server.connect(transport)
      await transport.handleRequest(req, res)
    } finally {
      opening--
    }
    // Anything but a valid initialize was answered with an error and opened no session.
    if (transport.sessionId === undefined) await server.close()
  }

  // Idle sessions go, so clients that vanish without DELETE do not pile up.
  const sweep = setInterval(
    () => {
      const cutoff = Date.now() - options.sessionIdleMs
      for (const session of sessions.values()) {
        if (session.requestsInFlight === 0 && session.lastSeen < cutoff) void session.server.close().catch(() => undefined)
      }
    },
    Math.min(options.sessionIdleMs, 60_000),
  )
  sweep.unref()

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject)
    httpServer.listen(options.port, options.host, () => {
      httpServer.off('error', reject)
      resolve()
    })
  })
  const { address, port } = httpServer.address() as AddressInfo
  const host = address.includes(':') ? `[${address}]` : address

  return {
    url: `http://${host}:${port}${MCP_PATH}`,
    async close() {
      clearInterval(sweep)
      await Promise.allSettled([...sessions.values()].map((session) => session.server.close()))
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()))
      httpServer.closeAllConnections()
      await closed
    },
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

function bearerMatches(header: string | undefined, expectedDigest: Buffer): boolean {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '')
  // Equal-length digests: timingSafeEqual needs them, and the token's length stays hidden.
  return timingSafeEqual(sha256(match?.[1] ?? ''), expectedDigest) && match !== null
}

const LOOPBACK_HOST_HEADER = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?$/i

function loopbackHostHeader(host: string | undefined): boolean {
  return host !== undefined && LOOPBACK_HOST_HEADER.test(host)
}

/** An HTTP error with a JSON-RPC error body, as the SDK's transport answers its own errors. */
function reply(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }))
}
