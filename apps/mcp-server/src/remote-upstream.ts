import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SseError, SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ErrorCode, McpError, type Implementation, type Tool } from '@modelcontextprotocol/sdk/types.js'
import type { UpstreamConfig } from './config-schema.js'
import { expandEnv } from './expand-env.js'
import { listAllTools } from './list-tools.js'
import { log } from './log.js'
import { statusListeners, UpstreamStartError, type StartUpstreamOptions, type Upstream, type UpstreamStatus } from './upstream.js'

/** While up, a ping this often notices an upstream that went away between calls. */
const HEALTH_CHECK_MS = 30_000
/** While down, reconnect attempts wait this long at first, doubling up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 1_000
const RETRY_MAX_MS = 30_000

type Kind = 'streamable-http' | 'sse'

interface Connection {
  client: Client
  kind: Kind
  tools: Tool[]
}

/**
 * An upstream MCP server reached over HTTP with the SDK's client transports: Streamable
 * HTTP, falling back to the older HTTP+SSE transport when the server answers the first POST
 * with a 4xx other than 401/403 (what the MCP spec tells clients to do), or SSE only with
 * `"type": "sse"`. `headers` (with `${VAR}` expanded) go with every request.
 *
 * When a call fails because the server cannot be reached (refused, reset, an HTTP error, its
 * session gone), the upstream is marked unavailable: the description says so, calls throw a
 * clear Error in the guest, and it reconnects in the background (1 s, doubling up to 30 s)
 * and at the next call, coming back with the same tools.
 */
export async function startRemoteUpstream(name: string, config: UpstreamConfig, options: StartUpstreamOptions): Promise<Upstream> {
  const env = options.env ?? process.env
  let url: URL
  let headers: Record<string, string>
  try {
    const text = expandEnv(config.url!, env, 'url')
    try {
      url = new URL(text)
    } catch {
      throw new Error(`its url "${text}" is not a URL`)
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`its url "${text}" is not http: or https:`)
    headers = Object.fromEntries(Object.entries(config.headers ?? {}).map(([key, value]) => [key, expandEnv(value, env, `headers.${key}`)]))
  } catch (error) {
    throw new UpstreamStartError(name, (error as Error).message)
  }
  const target = url.href

  const listeners = statusListeners()
  let connection: Connection | undefined
  let down: string | undefined
  let closed = false
  let attempt: Promise<Connection> | undefined
  let retryTimer: NodeJS.Timeout | undefined
  let retryDelay = RETRY_FIRST_MS

  async function connect(): Promise<Connection> {
    const deadline = AbortSignal.timeout(config.startupTimeoutMs)
    const within = { signal: deadline, timeout: config.startupTimeoutMs }
    const open = async (kind: Kind): Promise<Connection> => {
      const client = new Client({ name: 'cordon-mcp', version: options.version })
      const transport =
        kind === 'sse'
          ? new SSEClientTransport(url, { requestInit: { headers } })
          : new StreamableHTTPClientTransport(url, { requestInit: { headers } })
      try {
        await client.connect(transport, within)
        return { client, kind, tools: await listAllTools(client, within) }
      } catch (error) {
        await client.close().catch(() => undefined)
        throw deadline.aborted
          ? new Error(`it did not finish the MCP handshake and list its tools within ${config.startupTimeoutMs} ms (startupTimeoutMs)`)
          : error
      }
    }
    if (config.type === 'sse') return open('sse')
    try {
      return await open('streamable-http')
    } catch (error) {
      const status = error instanceof StreamableHTTPError ? error.code : undefined
      if (status === undefined || status < 400 || status >= 500 || status === 401 || status === 403) throw error
      const connected = await open('sse')
      log(`upstream server "${name}" does not speak Streamable HTTP (HTTP ${status}); connected with the older HTTP+SSE transport`)
      return connected
    }
  }

  function watch(current: Connection): void {
    current.client.onclose = () => {
      if (connection === current && !closed) markDown('the connection closed')
    }
    current.client.onerror = (error) => {
      if (connection === current && down === undefined && !closed) log(`upstream server "${name}": ${error.message}`)
    }
  }

  function markDown(reason: string): void {
    if (closed) return
    const wasUp = down === undefined
    down = reason
    const old = connection
    connection = undefined
    void old?.client.close().catch(() => undefined)
    if (wasUp) {
      log(`upstream server "${name}" is unavailable: ${reason}; its tools fail until it is back (reconnecting in the background)`)
      retryDelay = RETRY_FIRST_MS
      listeners.notify()
    }
    scheduleRetry()
  }

  function markUp(current: Connection): void {
    connection = current
    watch(current)
    if (retryTimer !== undefined) clearTimeout(retryTimer)
    retryTimer = undefined
    if (down !== undefined) {
      down = undefined
      log(`upstream server "${name}" is back (${current.kind})`)
      listeners.notify()
    }
  }

  function scheduleRetry(): void {
    if (closed || retryTimer !== undefined) return
    retryTimer = setTimeout(() => {
      retryTimer = undefined
      if (connection !== undefined || closed) return
      reconnect().catch(() => {
        retryDelay = Math.min(retryDelay * 2, RETRY_MAX_MS)
        scheduleRetry()
      })
    }, retryDelay)
    retryTimer.unref()
  }

  /** One reconnect at a time; calls made meanwhile wait for the same attempt. */
  function reconnect(): Promise<Connection> {
    attempt ??= (async () => {
      try {
        const current = await connect()
        if (closed) {
          await current.client.close().catch(() => undefined)
          throw new Error('closed')
        }
        const before = tools.map((tool) => tool.name).join('\n')
        if (current.tools.map((tool) => tool.name).join('\n') !== before) {
          log(
            `upstream server "${name}" lists different tools since it came back; the sandbox keeps the ones from startup (restart cordon-mcp to follow the change)`,
          )
        }
        markUp(current)
        return current
      } catch (error) {
        if (!closed) down = connectionFailure(error)
        throw error
      } finally {
        attempt = undefined
      }
    })()
    return attempt
  }

  let first: Connection
  try {
    first = await connect()
  } catch (error) {
    throw new UpstreamStartError(name, `cannot reach ${target}: ${connectionFailure(error)}`, true)
  }
  const tools = first.tools
  const info: Implementation | undefined = first.client.getServerVersion()
  markUp(first)

  const health = setInterval(() => {
    const current = connection
    if (current === undefined || closed) return
    current.client.ping({ timeout: 10_000 }).catch((error: unknown) => {
      if (connection === current) markDown(connectionFailure(error))
    })
  }, HEALTH_CHECK_MS)
  health.unref()

  return {
    name,
    transport: first.kind,
    info,
    tools,
    pid: null,
    async callTool(tool, args, { signal, timeoutMs }) {
      const call = (current: Connection) =>
        current.client.callTool({ name: tool, arguments: args as Record<string, unknown> | undefined }, undefined, {
          signal,
          timeout: Math.min(timeoutMs, config.callTimeoutMs ?? Number.POSITIVE_INFINITY),
        })
      const reconnected = async () => {
        try {
          return await reconnect()
        } catch {
          throw new Error(unavailableMessage(name, down))
        }
      }
      const current = connection ?? (await reconnected())
      try {
        return await call(current)
      } catch (error) {
        if (signal.aborted || !unreachable(error)) throw error
        if (connection === current) markDown(connectionFailure(error))
        // The server restarted and no longer knows our session: the call never ran there, so
        // it is sent once more on a new session.
        if (sessionGone(error)) return call(await reconnected())
        throw new Error(unavailableMessage(name, down), { cause: error })
      }
    },
    status: (): UpstreamStatus =>
      down === undefined
        ? { available: true }
        : { available: false, reason: `${target} is unreachable (${down}); cordon-mcp is reconnecting` },
    onStatusChange: (listener) => listeners.add(listener),
    async close() {
      closed = true
      clearInterval(health)
      if (retryTimer !== undefined) clearTimeout(retryTimer)
      const current = connection
      connection = undefined
      // Ends the MCP session on the server (DELETE), then closes the transport.
      if (current?.kind === 'streamable-http')
        await (current.client.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined)
      await current?.client.close()
    },
  }
}

/** Errors that mean the server was not reached (as opposed to an answer, e.g. invalid params or a timeout). */
function unreachable(error: unknown): boolean {
  if (error instanceof McpError) return error.code === (ErrorCode.ConnectionClosed as number)
  return true
}

/** HTTP 404 on a request with our session id: the server forgot the session (the request was not processed). */
function sessionGone(error: unknown): boolean {
  if (error instanceof StreamableHTTPError) return error.code === 404
  // The SSE transport throws a plain Error for a refused POST: "Error POSTing to endpoint (HTTP 404): …".
  return error instanceof Error && /\(HTTP 404\)/.test(error.message)
}

function unavailableMessage(name: string, reason: string | undefined): string {
  return `the upstream server "${name}" is unavailable (${reason ?? 'not connected'}); cordon-mcp keeps reconnecting, try again later`
}

/** A short reason: the HTTP status, or the network error's code (ECONNREFUSED), not a stack. */
function connectionFailure(error: unknown): string {
  if ((error instanceof StreamableHTTPError || error instanceof SseError) && error.code !== undefined && error.code > 0) {
    const hint = error.code === 401 || error.code === 403 ? ' (check its "headers": the token may be missing or wrong)' : ''
    return `HTTP ${error.code}${hint}: ${error.message}`
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  const message = error instanceof Error ? error.message : String(error)
  return cause?.code !== undefined ? `${message}: ${cause.code}` : cause?.message !== undefined ? `${message}: ${cause.message}` : message
}
