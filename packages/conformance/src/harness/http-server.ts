/**
 * A real HTTP server on loopback for the fetch group: it records what reached it and whether
 * each connection was closed before its response finished (a request the host aborted).
 *
 * Routes: `/echo` (method, path, headers and body as JSON; the `authorization` header is
 * echoed back in `x-echo-authorization` too), `/redirect?to=URL&status=N`, `/bytes?n=N` (N bytes,
 * streamed in 16 KiB chunks as the client reads them), `/slow` (headers, then nothing).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

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
  /** Resolves when a response to `path` is cut off, or rejects after `ms`. */
  cutOffWithin(path: string, ms: number): Promise<void>
  close(): Promise<void>
}

const CHUNK = 16 * 1024

export async function startTestServer(): Promise<TestServer> {
  const seen: SeenRequest[] = []
  const cutOff: string[] = []
  const waiters: { path: string; resolve: () => void }[] = []
  const handle = (request: IncomingMessage, response: ServerResponse, body: string) => {
    const url = new URL(request.url ?? '/', 'http://test.invalid')
    seen.push({ method: request.method ?? '', path: url.pathname + url.search, headers: request.headers, body })
    response.on('close', () => {
      if (response.writableFinished) return
      cutOff.push(url.pathname)
      for (const waiter of waiters.filter((w) => w.path === url.pathname)) waiter.resolve()
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    seen,
    cutOff,
    cutOffWithin(path, ms) {
      if (cutOff.includes(path)) return Promise.resolve()
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the server did not see the connection for ${path} closed within ${ms} ms`)), ms)
        waiters.push({
          path,
          resolve: () => {
            clearTimeout(timer)
            resolve()
          },
        })
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
