/**
 * A real HTTP server on loopback for the fetch group: it records what reached it and whether
 * each connection was closed before its response finished (a request the host aborted).
 *
 * Routes: `/echo` (method, path, headers and body as JSON; the `authorization` header is
 * echoed back in `x-echo-authorization` too), `/redirect?to=URL&status=N`, `/bytes?n=N` (N bytes,
 * streamed in 16 KiB chunks as the client reads them), `/slow` (headers, then nothing).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export interface SeenRequest {
  method: string
  path: string
  headers: IncomingMessage['headers']
  body: string
}

export interface TestServer {
  readonly port: number
  /** `http://127.0.0.1:PORT` */
  readonly origin: string
  readonly seen: SeenRequest[]
  /** Paths whose connection closed before the response was complete. */
  readonly cutOff: string[]
  /**
   * Resolves when the host has let go of its request for `path`: a response to it was cut off,
   * or — when the request never reached the handler (on a loaded machine a short deadline can
   * come first) — no request for it is answering and no connection is open. Rejects after `ms`.
   */
  cutOffWithin(path: string, ms: number): Promise<void>
  close(): Promise<void>
}

const CHUNK = 16 * 1024

export async function startTestServer(): Promise<TestServer> {
  const seen: SeenRequest[] = []
  const cutOff: string[] = []
  const waiters: { path: string; resolve: () => void }[] = []
  const answering: string[] = []
  const sockets = new Set<Socket>()
  const letGo = (path: string) => cutOff.includes(path) || (sockets.size === 0 && !answering.includes(path))
  const wake = () => {
    for (const waiter of waiters.filter((w) => letGo(w.path))) waiter.resolve()
  }
  const handle = (request: IncomingMessage, response: ServerResponse, body: string) => {
    const url = new URL(request.url ?? '/', 'http://test.invalid')
    seen.push({ method: request.method ?? '', path: url.pathname + url.search, headers: request.headers, body })
    answering.push(url.pathname)
    response.on('close', () => {
      answering.splice(answering.indexOf(url.pathname), 1)
      if (!response.writableFinished) cutOff.push(url.pathname)
      wake()
    })
    switch (url.pathname) {
      case '/echo': {
        const auth = request.headers.authorization
        if (auth !== undefined) response.setHeader('x-echo-authorization', auth)
        response.setHeader('content-type', 'application/json')
        response.end(JSON.stringify({ method: request.method, path: url.pathname + url.search, headers: request.headers, body }))
        return
      }
      case '/redirect':
        response.writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to') ?? '/echo' })
        response.end()
        return
      case '/bytes': {
        let left = Number(url.searchParams.get('n') ?? 0)
        response.writeHead(200, { 'content-type': 'application/octet-stream' })
        const pump = () => {
          while (left > 0) {
            const size = Math.min(CHUNK, left)
            left -= size
            if (!response.write(Buffer.alloc(size, 0x61))) return void response.once('drain', pump)
          }
          response.end()
        }
        pump()
        return
      }
      case '/slow':
        response.writeHead(200, { 'content-type': 'text/plain' })
        response.write('started')
        return
      default:
        response.writeHead(404).end('not found')
    }
  }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => handle(request, response, Buffer.concat(chunks).toString('utf8')))
  })
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => {
      sockets.delete(socket)
      wake()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    seen,
    cutOff,
    cutOffWithin(path, ms) {
      if (letGo(path)) return Promise.resolve()
      return new Promise<void>((resolve, reject) => {
        const waiter = {
          path,
          resolve: () => {
            clearTimeout(timer)
            waiters.splice(waiters.indexOf(waiter), 1)
            resolve()
          },
        }
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1)
          reject(new Error(`the server did not see the connection for ${path} closed within ${ms} ms`))
        }, ms)
        waiters.push(waiter)
      })
    },
    close() {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Starts a server, runs `body` with it, and always closes it. */
export async function withTestServer<T>(body: (server: TestServer) => Promise<T>): Promise<T> {
  const server = await startTestServer()
  try {
    return await body(server)
  } finally {
    await server.close()
  }
}
