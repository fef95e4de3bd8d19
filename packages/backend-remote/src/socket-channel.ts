import type { IncomingMessage } from 'node:http'
import type { RunError } from '@cordon/core'
import {
  BACKEND_STOP_GRACE_MS,
  ChannelClient,
  PARTITION_HEADER,
  REFUSAL_HEADER,
  RUN_ID_HEADER,
  abortedError,
  type Order,
} from '@cordon/core/backend'
import WebSocket from 'ws'
import type { RemoteSettings } from './remote-options.js'

/** One connection to a server: the channel of a session, or of one-off runs one at a time. */
export interface SocketChannel {
  client: ChannelClient
  /** The connection's close code, once it closed. */
  readonly closeCode: number | undefined
  /** Open, sound, and with nothing in flight: it may carry the next run. */
  readonly reusable: boolean
  /** Called once, when the connection closes. */
  onClose(listener: () => void): void
  /** Ends the connection (the run or session is over, or the backend is disposed). */
  close(): void
}

export interface ConnectRequest {
  /** The caller's id for this connection's run or session; the server logs it. */
  runId: string
  partition: string | undefined
  /** No connecting past this `Date.now()` time (the run's deadline). */
  deadline: number
  signal?: AbortSignal
}

/** After a run is stopped, how long its server may still take to report before the connection is dropped. */
const KILL_GRACE_MS = 1_000

type Attempt = { kind: 'open'; channel: SocketChannel } | { kind: 'final'; error: RunError } | { kind: 'retry'; problem: string }

/**
 * Connects to a server, retrying only what cannot have started anything: a refused or reset
 * connection, a proxy with no server to give, a draining server. Resolves the channel, or the
 * error the run ends with (BUSY when the server is at capacity).
 */
export async function connectChannel(settings: RemoteSettings, request: ConnectRequest): Promise<SocketChannel | RunError> {
  const giveUpAt = Math.min(request.deadline, Date.now() + settings.connectTimeoutMs)
  let problem = 'no attempt'
  for (let attempt = 0; ; attempt++) {
    if (request.signal?.aborted) return abortedError(request.signal.reason)
    const left = giveUpAt - Date.now()
    if (left <= 0) break
    const outcome = await connectOnce(settings, request, left)
    if (outcome.kind === 'open') return outcome.channel
    if (outcome.kind === 'final') return outcome.error
    problem = outcome.problem
    // The last pause ends at the time limit, so that giving up happens then, not before it.
    const pause = Math.min(20 * 2 ** attempt, 200, giveUpAt - Date.now())
    if (pause > 0) await new Promise((resume) => setTimeout(resume, pause))
  }
  return {
    code: 'BACKEND_UNAVAILABLE',
    message: `no cordon server took the run at ${settings.channelUrl} within ${settings.connectTimeoutMs} ms: ${problem}`,
  }
}

function connectOnce(settings: RemoteSettings, request: ConnectRequest, timeLeftMs: number): Promise<Attempt> {
  const headers: Record<string, string> = { authorization: `Bearer ${settings.token}`, [RUN_ID_HEADER]: request.runId }
  if (request.partition !== undefined) headers[PARTITION_HEADER] = encodeURIComponent(request.partition)
  const socket = new WebSocket(settings.channelUrl, {
    headers,
    maxPayload: settings.maxMessageBytes,
    handshakeTimeout: Math.max(1, Math.ceil(timeLeftMs)),
    perMessageDeflate: false,
    followRedirects: false,
    ...(settings.ca === undefined ? {} : { ca: settings.ca }),
  })
  return new Promise<Attempt>((resolve) => {
    let settled = false
    const settle = (attempt: Attempt) => {
      if (settled) return
      settled = true
      request.signal?.removeEventListener('abort', onAbort)
      if (attempt.kind !== 'open') socket.terminate()
      resolve(attempt)
    }
    const onAbort = () => settle({ kind: 'final', error: abortedError(request.signal?.reason) })
    request.signal?.addEventListener('abort', onAbort, { once: true })
    // The channel listens from the moment the socket opens: the server's hello may come in the
    // same read as the handshake's answer.
    socket.once('open', () => settle({ kind: 'open', channel: openChannel(settings, socket, request.runId) }))
    socket.once('unexpected-response', (req, res: IncomingMessage) => {
      res.resume()
      req.destroy()
      settle(refusal(settings, res))
    })
    // A refused, reset or timed-out connection: nothing reached a server.
    socket.on('error', (error) => settle({ kind: 'retry', problem: error.message }))
  })
}

function refusal(settings: RemoteSettings, res: IncomingMessage): Attempt {
  const status = res.statusCode ?? 0
  const reason = res.headers[REFUSAL_HEADER]
  if (status === 401 || status === 403)
    return { kind: 'final', error: { code: 'BACKEND_UNAVAILABLE', message: `${settings.channelUrl} refused the token (HTTP ${status})` } }
  if (status === 503 && reason === 'busy')
    return { kind: 'final', error: { code: 'BUSY', message: 'the cordon server is running as many programs as it may; try again later' } }
  // A draining server, or a proxy with no live server at this moment: another attempt may land elsewhere.
  if (status === 502 || status === 503 || status === 504)
    return { kind: 'retry', problem: `HTTP ${status}${reason === undefined ? '' : ' ' + String(reason)}` }
  return { kind: 'final', error: { code: 'BACKEND_UNAVAILABLE', message: `${settings.channelUrl} answered HTTP ${status}` } }
}

function openChannel(settings: RemoteSettings, socket: WebSocket, runId: string): SocketChannel {
  const label = `the cordon server (run ${runId})`
  const client: ChannelClient = new ChannelClient(
    {
      send: (batch: Order[]) => {
        if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(batch))
      },
    },
    {
      label,
      maxChars: settings.maxMessageBytes,
      stopGraceMs: BACKEND_STOP_GRACE_MS,
      killGraceMs: KILL_GRACE_MS,
      kill: (reason) => {
        client.fail(reason)
        socket.terminate()
      },
    },
  )
  socket.on('message', (data: Buffer, isBinary: boolean) => {
    let batch: unknown
    try {
      if (isBinary) throw new Error('binary')
      batch = JSON.parse(data.toString('utf8'))
    } catch {
      client.fail({ code: 'BACKEND_CRASHED', message: `${label} sent a message that is not a JSON batch` })
      socket.terminate()
      return
    }
    client.receive(batch)
  })
  let closeCode: number | undefined
  const closeListeners: (() => void)[] = []
  socket.on('close', (code: number) => {
    closeCode = code
    client.fail({ code: 'BACKEND_CRASHED', message: `${label}: the connection closed (${code}) before the run ended` })
    for (const listener of closeListeners.splice(0)) listener()
  })
  // Every error also closes the socket: 'close' above reports it.
  socket.on('error', () => undefined)
  return {
    client,
    get closeCode() {
      return closeCode
    },
    get reusable() {
      return socket.readyState === WebSocket.OPEN && !client.lost && !client.busy
    },
    onClose: (listener) => {
      if (closeCode === undefined) closeListeners.push(listener)
      else listener()
    },
    close: () => {
      if (socket.readyState === WebSocket.OPEN) socket.close(1000)
      else socket.terminate()
    },
  }
}
