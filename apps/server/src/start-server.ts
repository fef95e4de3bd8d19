import { randomUUID } from 'node:crypto'
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo, Socket } from 'node:net'
import {
  CHANNEL_VERSION,
  PARTITION_HEADER,
  REFUSAL_HEADER,
  REMOTE_CHANNEL_PATH,
  REMOTE_INFO_PATH,
  RUN_ID_HEADER,
  type RemoteRefusal,
  type ServerInfo,
} from '@cordon/core/backend'
import { WebSocketServer } from 'ws'
import { serveConnection, type ServedConnection } from './channel-connection.js'
import { localBackend, warmUp } from './local-backend.js'
import { createLogger } from './log.js'
import { createMetrics } from './metrics.js'
import { Places } from './places.js'
import { resolveServerOptions, type ServerOptions } from './server-options.js'
import { createTokenCheck } from './token-check.js'

export interface CordonServer {
  /** `http://host:port` or `https://…`, with the port actually bound. */
  readonly url: string
  readonly port: number
  /** The name of the backend programs run on. */
  readonly backend: string
  /** Connections open now (with a run or session, or kept by their caller for the next run). */
  readonly connections: number
  /** Runs in flight and sessions open now: the places of `maxRuns` in use. */
  readonly inUse: number
  /**
   * Takes no new runs (readiness fails, new connections are refused `draining`), lets the runs in
   * flight finish (up to `drainTimeoutMs`), then closes. Idempotent.
   */
  drain(): Promise<void>
  /** Closes at once: runs in flight are stopped. */
  close(): Promise<void>
}

/** Connections without a run may outnumber the places this many times (callers keep them for their next run). */
const IDLE_CONNECTIONS_PER_PLACE = 4

/** A caller's connection id as it appears in logs: printable, bounded; otherwise the server makes one. */
const RUN_ID = /^[\w.:-]{1,100}$/

/**
 * Starts a cordon server: the backend contract over one WebSocket per run or session
 * (`/v1/channel`), what it runs on (`/v1/info`), liveness (`/healthz`), readiness (`/readyz`)
 * and Prometheus metrics (`/metrics`). Ready once its backend has run a first program.
 */
export async function startServer(options: ServerOptions): Promise<CordonServer> {
  const settings = resolveServerOptions(options)
  const log = createLogger(settings.log)
  const metrics = createMetrics()
  const tokenMatches = createTokenCheck(settings.token)
  const { backend, why } = await localBackend(settings.backend)
  const info: ServerInfo = {
    channelVersion: CHANNEL_VERSION,
    backend: backend.name,
    // A synchronous tool would have to block this server's event loop on the network: never.
    capabilities: { ...backend.capabilities, syncHostCalls: false },
    maxLimits: settings.maxLimits,
    maxMessageBytes: settings.maxMessageBytes,
  }
  const open = new Set<ServedConnection>()
  const places = new Places(settings.maxRuns)
  let ready = false
  let draining: Promise<void> | undefined
  let closed: Promise<void> | undefined

  const respond = (res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8') => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' })
    res.end(body)
  }
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]
    if (req.method !== 'GET') return respond(res, 405, 'method not allowed\n')
    switch (path) {
      case '/healthz':
        return respond(res, 200, 'ok\n')
      case '/readyz':
        return ready && draining === undefined ? respond(res, 200, 'ready\n') : respond(res, 503, draining ? 'draining\n' : 'starting\n')
      case '/metrics':
        metrics.registry.metrics().then(
          (text) => respond(res, 200, text, metrics.registry.contentType),
          () => respond(res, 500, 'metrics failed\n'),
        )
        return
      case REMOTE_INFO_PATH:
        if (!tokenMatches(req.headers.authorization)) {
          metrics.refusals.inc({ reason: 'token' })
          return respond(res, 401, 'unauthorized\n')
        }
        return respond(res, 200, JSON.stringify(info), 'application/json')
      default:
        return respond(res, 404, 'not found\n')
    }
  }
  const http: Server = settings.tls === undefined ? createHttpServer(handle) : createHttpsServer(settings.tls, handle)
  // No compression: a caller-controlled inflate is a memory bomb, and runs are on fast links.
  const sockets = new WebSocketServer({ noServer: true, maxPayload: settings.maxMessageBytes, perMessageDeflate: false })

  const refuse = (socket: Socket, status: number, reason: string, refusal?: RemoteRefusal) => {
    const extra = refusal === undefined ? '' : `${REFUSAL_HEADER}: ${refusal}\r\n`
    socket.end(`HTTP/1.1 ${status} ${reason}\r\n${extra}connection: close\r\ncontent-length: 0\r\n\r\n`)
  }
  http.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => socket.destroy())
    const path = (req.url ?? '/').split('?')[0]
    if (path !== REMOTE_CHANNEL_PATH) return refuse(socket, 404, 'Not Found')
    if (!tokenMatches(req.headers.authorization)) {
      metrics.refusals.inc({ reason: 'token' })
      return refuse(socket, 401, 'Unauthorized')
    }
    if (draining !== undefined || !ready) {
      metrics.refusals.inc({ reason: 'draining' })
      return refuse(socket, 503, 'Service Unavailable', 'draining')
    }
    // A connection is let in only while a place is free for its run, and idle connections are
    // bounded too: a caller cannot hold the server with connections it never uses.
    if (open.size >= settings.maxRuns * IDLE_CONNECTIONS_PER_PLACE || !places.admit()) {
      metrics.refusals.inc({ reason: 'busy' })
      return refuse(socket, 503, 'Service Unavailable', 'busy')
    }
    const given = req.headers[RUN_ID_HEADER]
    const connectionId = typeof given === 'string' && RUN_ID.test(given) ? given : randomUUID()
    const partition = decodePartition(req.headers[PARTITION_HEADER])
    // Counted from now, before the handshake ends: a burst cannot overshoot maxRuns.
    const placeholder: ServedConnection = { endWhenIdle: () => undefined, end: () => socket.destroy() }
    open.add(placeholder)
    let arrived = false
    const arrive = () => {
      if (!arrived) places.arrived()
      arrived = true
    }
    socket.once('close', arrive)
    sockets.handleUpgrade(req, socket, head, (ws) => {
      arrive()
      open.delete(placeholder)
      metrics.connections.inc()
      const connection = serveConnection(ws, {
        backend,
        options: settings,
        metrics,
        log,
        connectionId,
        partition,
        places,
        draining: () => draining !== undefined,
      })
      open.add(connection)
      ws.on('close', () => {
        open.delete(connection)
        metrics.connections.dec()
      })
      if (draining !== undefined) connection.endWhenIdle()
    })
    socket.once('close', () => open.delete(placeholder))
  })

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(settings.port, settings.host, () => {
      http.off('error', reject)
      resolve()
    })
  })
  const { port } = http.address() as AddressInfo
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host
  const url = `${settings.tls === undefined ? 'http' : 'https'}://${host}:${port}`

  const close = (): Promise<void> => {
    closed ??= (async () => {
      for (const connection of open) connection.end()
      sockets.close()
      await new Promise<void>((resolve) => {
        http.close(() => resolve())
        http.closeAllConnections()
      })
      await backend.dispose()
      log('info', 'server closed')
    })()
    return closed
  }

  const server: CordonServer = {
    url,
    port,
    backend: backend.name,
    get connections() {
      return open.size
    },
    get inUse() {
      return places.inUse
    },
    drain() {
      draining ??= (async () => {
        log('info', 'draining', { connections: open.size })
        for (const connection of open) connection.endWhenIdle()
        const until = Date.now() + settings.drainTimeoutMs
        while (open.size > 0 && Date.now() < until) await new Promise((resume) => setTimeout(resume, 20))
        await close()
      })()
      return draining
    },
    close,
  }

  log('info', 'listening', { url, backend: backend.name, why, maxRuns: settings.maxRuns })
  try {
    await warmUp(backend)
  } catch (error) {
    await close()
    throw error
  }
  ready = true
  return server
}

function decodePartition(value: string | string[] | undefined): string | undefined {
  if (typeof value !== 'string' || value.length > 600) return undefined
  try {
    const partition = decodeURIComponent(value)
    return partition.length > 0 && partition.length <= 200 ? partition : undefined
  } catch {
    return undefined
  }
}
