/**
 * The debugger's socket for one run: a WebSocket on a loopback address at an unguessable path
 * (as Node's `--inspect`), plus the `/json/list` and `/json/version` pages Chrome's
 * `chrome://inspect` reads to find targets. `ws` is loaded the first time a run asks for it.
 */
import type http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { WebSocket } from 'ws'
import { SandboxError } from '../errors.js'
import type { InspectorEndpoint } from './inspector-options.js'

/** One debugger's connection: what it sends, and how to end it. */
export interface DebuggerClient {
  send(message: string): void
  close(reason: string): void
}

export interface InspectorServer {
  readonly endpoint: InspectorEndpoint
  /** Ends every connection and stops listening. Idempotent. */
  close(reason: string): void
}

/** A client connected: `onMessage` gets its messages; returns what to do when it leaves. */
export type OnClient = (client: DebuggerClient, onMessage: (handler: (message: string) => void) => void) => () => void

const PROTOCOL_VERSION = '1.3'

export async function startInspectorServer(host: string, port: number, onClient: OnClient): Promise<InspectorServer> {
  const [{ WebSocketServer }, { default: http }] = await Promise.all([import('ws'), import('node:http')])
  const id = globalThis.crypto.randomUUID()
  const sockets = new Set<WebSocket>()
  const wss = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 * 1024 })
  // Known once the server listens, before anyone can ask for the list.
  const known: { endpoint?: InspectorEndpoint } = {}
  const server = http.createServer((request, response) => {
    if (!allowedHost(request.headers.host)) return refuse(response, 403, 'the Host header must be a loopback address or localhost')
    const path = (request.url ?? '/').split('?')[0]!.replace(/\/+$/, '')
    if (path === '/json' || path === '/json/list') return json(response, known.endpoint === undefined ? [] : [target(known.endpoint, id)])
    if (path === '/json/version') return json(response, { Browser: 'cordon', 'Protocol-Version': PROTOCOL_VERSION })
    refuse(response, 404, 'not found')
  })
  server.on('upgrade', (request, socket, head) => {
    // Node hands an upgrade's socket over without an error listener: a client's reset would be
    // thrown in the host. ws adds its own once it takes the socket.
    socket.on('error', () => socket.destroy())
    // A page on another site that resolves its name to 127.0.0.1 (DNS rebinding) sends its own Host.
    if (request.url !== `/${id}` || !allowedHost(request.headers.host)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n')
      return
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      sockets.add(ws)
      let handler: ((message: string) => void) | undefined
      const client: DebuggerClient = {
        send: (message) => {
          if (ws.readyState === ws.OPEN) ws.send(message)
        },
        close: (reason) => ws.close(1000, reason.slice(0, 120)),
      }
      const left = onClient(client, (next) => (handler = next))
      ws.on('message', (data) => handler?.(textOf(data)))
      ws.on('close', () => {
        sockets.delete(ws)
        left()
      })
      ws.on('error', () => ws.terminate())
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new SandboxError(
          'INVALID_OPTIONS',
          `inspector: cannot listen on ${host}:${port} (${error.code === 'EADDRINUSE' ? 'the port is in use' : error.message})`,
        ),
      ),
    )
    server.listen(port, host, () => resolve())
  })
  const bound = (server.address() as AddressInfo).port
  const authority = `${host.includes(':') ? `[${host}]` : host}:${bound}`
  const endpoint: InspectorEndpoint = {
    webSocketUrl: `ws://${authority}/${id}`,
    devtoolsUrl: `devtools://devtools/bundled/js_app.html?experiments=true&v8only=true&ws=${authority}/${id}`,
    host,
    port: bound,
  }
  known.endpoint = endpoint
  let closed = false
  return {
    endpoint,
    close(reason) {
      if (closed) return
      closed = true
      for (const ws of sockets) ws.close(1000, reason.slice(0, 120))
      // Sockets that do not answer the close handshake are cut after a moment.
      const cut = setTimeout(() => sockets.forEach((ws) => ws.terminate()), 1000)
      cut.unref()
      wss.close()
      server.close()
      server.closeAllConnections()
    },
  }
}

function target(endpoint: InspectorEndpoint, id: string) {
  const ws = endpoint.webSocketUrl.slice('ws://'.length)
  return {
    description: 'a cordon sandbox run',
    devtoolsFrontendUrl: endpoint.devtoolsUrl,
    devtoolsFrontendUrlCompat: `devtools://devtools/bundled/inspector.html?experiments=true&v8only=true&ws=${ws}`,
    faviconUrl: '',
    id,
    title: 'cordon guest',
    type: 'node',
    url: 'cordon:///program',
    webSocketDebuggerUrl: endpoint.webSocketUrl,
  }
}

/** As Node's inspector: an IP literal or `localhost` (with or without a port). */
function allowedHost(header: string | undefined): boolean {
  if (header === undefined) return true
  const host = header.startsWith('[') ? header.slice(1, header.indexOf(']')) : header.replace(/:\d+$/, '')
  return host === 'localhost' || /^[\d.]+$/.test(host) || host.includes(':')
}

function textOf(data: Buffer | ArrayBuffer | Buffer[]): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8')
  return (Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8')
}

function json(response: http.ServerResponse, body: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' })
  response.end(JSON.stringify(body))
}

function refuse(response: http.ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=UTF-8' })
  response.end(message)
}
