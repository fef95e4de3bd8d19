import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
import {
  CHANNEL_VERSION,
  IDLE_CLOSE_CODE,
  REFUSAL_HEADER,
  REMOTE_CHANNEL_PATH,
  REMOTE_INFO_PATH,
  serveBackend,
  type Order,
  type Report,
  type SandboxBackend,
} from '@cordon/core/backend'
import WebSocket, { WebSocketServer } from 'ws'

export const FAKE_TOKEN = 'fake-server-token-0123456789'

/** What the fake does with an accepted connection. */
export type Behaviour =
  /** Serves the orders on a real QuickJS backend, as a cordon server would. */
  | 'serve'
  /** Accepts, then never answers anything. */
  | 'silent'
  /** Serves, but drops the connection as soon as a run order arrives. */
  | 'drop-on-run'
  /** Sends `garbage` as its first message instead of a hello. */
  | 'garbage'

/** What the fake does with a run order on a connection that already ran a program. */
export type LaterRun =
  | 'serve'
  /** Closes as idle (IDLE_CLOSE_CODE), starting nothing. */
  | 'idle-close'
  /** Answers BUSY, starting nothing. */
  | 'busy'
  /** Drops the connection (as a crash would). */
  | 'drop'

export interface FakeServer {
  readonly url: string
  /** Answers to upgrades, in order, before any connection is accepted (then `behaviour`). */
  refusals: { status: number; refusal?: string }[]
  behaviour: Behaviour
  laterRun: LaterRun
  garbage: string
  info: unknown
  /** Every order received, per connection. */
  readonly orders: Order[][]
  /** Upgrade requests seen (refused ones too). */
  readonly upgrades: IncomingMessage[]
  close(): Promise<void>
}

/**
 * A server that speaks the socket protocol, and misbehaves on request: the far side the remote
 * backend must never trust.
 */
export async function startFakeServer(): Promise<FakeServer> {
  const backend: SandboxBackend = createQuickJSBackend()
  const sockets = new WebSocketServer({ noServer: true })
  const fake: FakeServer = {
    url: '',
    refusals: [],
    behaviour: 'serve',
    laterRun: 'serve',
    garbage: '',
    info: {
      channelVersion: CHANNEL_VERSION,
      backend: backend.name,
      capabilities: { ...backend.capabilities, syncHostCalls: false },
      maxLimits: { timeoutMs: 60_000, memoryMb: 256 },
      maxMessageBytes: 1024 * 1024,
    },
    orders: [],
    upgrades: [],
    close: async () => {
      for (const client of sockets.clients) client.terminate()
      sockets.close()
      await new Promise<void>((resolve) => http.close(() => resolve()))
      http.closeAllConnections()
      await backend.dispose()
    },
  }
  const http: Server = createServer((req, res) => {
    if (req.url !== REMOTE_INFO_PATH) return res.writeHead(404).end()
    if (req.headers.authorization !== `Bearer ${FAKE_TOKEN}`) return res.writeHead(401).end()
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(fake.info))
  })
  http.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    fake.upgrades.push(req)
    // A client that gives up resets the socket Node hands over here with no error listener.
    socket.on('error', () => socket.destroy())
    const refusal = fake.refusals.shift()
    if (req.url !== REMOTE_CHANNEL_PATH || refusal !== undefined) {
      const status = refusal?.status ?? 404
      const header = refusal?.refusal === undefined ? '' : `${REFUSAL_HEADER}: ${refusal.refusal}\r\n`
      socket.end(`HTTP/1.1 ${status} Refused\r\n${header}content-length: 0\r\n\r\n`)
      return
    }
    sockets.handleUpgrade(req, socket, head, (ws) => accept(ws))
  })
  const accept = (ws: WebSocket) => {
    const orders: Order[] = []
    fake.orders.push(orders)
    const behaviour = fake.behaviour
    if (behaviour === 'silent') {
      ws.on('message', (data: Buffer) => orders.push(...(JSON.parse(data.toString()) as Order[])))
      return
    }
    if (behaviour === 'garbage') {
      ws.send(fake.garbage)
      return
    }
    const send = (batch: Report[]) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(batch))
    const served = serveBackend(backend, { send })
    let runs = 0
    ws.on('message', (data: Buffer) => {
      const batch = JSON.parse(data.toString()) as Order[]
      orders.push(...batch)
      const run = batch.find((order) => order[0] === 'run')
      if (run !== undefined && runs++ > 0 && fake.laterRun !== 'serve') {
        if (fake.laterRun === 'idle-close') ws.close(IDLE_CLOSE_CODE)
        else if (fake.laterRun === 'drop') ws.terminate()
        else send([['done', run[1], { ok: false, error: { code: 'BUSY', message: 'no place' } }, false]])
        return
      }
      if (behaviour === 'drop-on-run' && run !== undefined) {
        ws.terminate()
        return
      }
      served.receive(batch)
    })
  }
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  ;(fake as { url: string }).url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  return fake
}
