import type { RunError } from '@cordon/core'
import { RUN_SLOTS, parseOrder, serveBackend, type Order, type Report, type SandboxBackend } from '@cordon/core/backend'
import WebSocket from 'ws'
import type { Logger } from './log.js'
import type { ServerMetrics } from './metrics.js'
import type { ResolvedServerOptions } from './server-options.js'

export interface ConnectionContext {
  backend: SandboxBackend
  options: ResolvedServerOptions
  metrics: ServerMetrics
  log: Logger
  /** The caller's id for this connection's run or session. */
  runId: string
  partition: string | undefined
  /** Whether the server is draining (a connection then ends once it has no run in flight). */
  draining(): boolean
}

/** Most tools one run may declare. */
const MAX_TOOLS = 10_000

/** A close code for a caller that broke the protocol (RFC 6455: policy violation). */
const POLICY_VIOLATION = 1008
const GOING_AWAY = 1001

export interface ServedConnection {
  /** Whether a run is in flight on it. */
  readonly busy: boolean
  /** Ends the connection once no run is in flight (at once when none is). */
  endWhenIdle(): void
  /** Ends the connection now; runs in flight are stopped. */
  end(): void
}

/**
 * One caller's connection: one run at a time, at most one session, every order checked
 * (`parseOrder`, then: is this id one this connection may use; do the limits fit this server)
 * before it reaches the engine. A breach closes the connection, and whatever it started stops.
 */
export function serveConnection(socket: WebSocket, context: ConnectionContext): ServedConnection {
  const { backend, options, metrics, log } = context
  const started = new Map<number, number>()
  const knownRuns = new Set<number>()
  let sessionId: number | undefined
  let ended = false
  let endWhenIdle = false

  const send = (batch: Report[]) => {
    for (const report of batch) if (report[0] === 'done') runEnded(report[1], report[2].ok ? undefined : report[2].error)
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(batch))
    if (endWhenIdle && started.size === 0) end(GOING_AWAY)
  }
  const served = serveBackend(backend, { send }, context.partition === undefined ? {} : { partition: context.partition })

  function runEnded(runId: number, error: RunError | undefined): void {
    const at = started.get(runId)
    if (at === undefined) return
    started.delete(runId)
    const code = error?.code ?? 'OK'
    const seconds = (performance.now() - at) / 1000
    metrics.runsInFlight.dec()
    metrics.runs.inc({ backend: backend.name, code })
    metrics.runSeconds.observe({ backend: backend.name }, seconds)
    log('info', 'run ended', { runId: context.runId, run: runId, code, ms: Math.round(seconds * 10_000) / 10 })
  }

  function refuseRun(runId: number, error: RunError): void {
    knownRuns.add(runId)
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify([['done', runId, { ok: false, error }, sessionId !== undefined]]))
  }

  /** Why this connection may not send `order`, if it may not. */
  function misuse(order: Order): string | undefined {
    switch (order[0]) {
      case 'run': {
        const [, runId, session] = order
        if (knownRuns.has(runId)) return 'a run id used twice'
        if (started.size > 0) return 'a second run while one is in flight'
        if (session !== 0 && session !== sessionId) return 'a run in a session this connection did not open'
        return undefined
      }
      case 'open':
        return sessionId === undefined ? undefined : 'a second session on one connection'
      default:
        return undefined
    }
  }

  function startRun(order: Extract<Order, ['run', ...unknown[]]>): boolean {
    const [, runId, , , runOrder] = order
    const { maxLimits } = options
    const over =
      runOrder.limits.timeoutMs > maxLimits.timeoutMs
        ? `timeoutMs ${runOrder.limits.timeoutMs} is over this server's cap of ${maxLimits.timeoutMs}`
        : runOrder.limits.memoryMb > maxLimits.memoryMb
          ? `memoryMb ${runOrder.limits.memoryMb} is over this server's cap of ${maxLimits.memoryMb}`
          : undefined
    if (over !== undefined) {
      refuseRun(runId, { code: 'INVALID_OPTIONS', message: over })
      return false
    }
    if (context.draining() && order[2] === 0) {
      refuseRun(runId, { code: 'BUSY', message: 'the cordon server is shutting down' })
      return false
    }
    // The time left is the caller's word: never more than its own timeout allows.
    order[4] = { ...runOrder, timeLeftMs: Math.min(runOrder.timeLeftMs, runOrder.limits.timeoutMs) }
    knownRuns.add(runId)
    started.set(runId, performance.now())
    metrics.runsInFlight.inc()
    log('info', 'run started', {
      runId: context.runId,
      run: runId,
      session: order[2] !== 0,
      ...(runOrder.traceparent === undefined ? {} : { traceparent: runOrder.traceparent }),
    })
    return true
  }

  function breach(problem: string): void {
    log('warn', 'caller broke the channel protocol', { runId: context.runId, problem })
    end(POLICY_VIOLATION)
  }

  function receive(data: Buffer, isBinary: boolean): void {
    if (ended) return
    let batch: unknown
    try {
      if (isBinary) throw new Error('binary')
      batch = JSON.parse(data.toString('utf8'))
    } catch {
      return breach('a message that is not a JSON batch')
    }
    if (!Array.isArray(batch)) return breach('a batch must be an array')
    for (const message of batch as unknown[]) {
      const order = parseOrder(message, { maxChars: options.maxMessageBytes, maxTools: MAX_TOOLS, slots: RUN_SLOTS })
      if (typeof order === 'string') return breach(order)
      const problem = misuse(order)
      if (problem !== undefined) return breach(problem)
      if (order[0] === 'run' && !startRun(order)) continue
      if (order[0] === 'open') {
        if (order[2] > options.maxLimits.memoryMb) {
          if (socket.readyState === WebSocket.OPEN)
            socket.send(
              JSON.stringify([
                [
                  'opened',
                  order[1],
                  { code: 'INVALID_OPTIONS', message: `memoryMb ${order[2]} is over this server's cap of ${options.maxLimits.memoryMb}` },
                ],
              ]),
            )
          continue
        }
        sessionId = order[1]
      }
      served.receive([order])
    }
  }

  /** Stops what the connection started: its runs, then its session. */
  function end(code: number): void {
    if (ended) return
    ended = true
    const orders: Order[] = [...started.keys()].map((runId) => ['stop', runId, 'ABORTED', 'the caller went away'])
    if (sessionId !== undefined) orders.push(['close', sessionId])
    if (orders.length > 0) served.receive(orders)
    if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) {
      socket.close(code)
      // A caller that never answers the close handshake does not hold the place.
      setTimeout(() => socket.terminate(), 1_000).unref()
    }
  }

  socket.on('message', receive)
  socket.on('close', () => end(GOING_AWAY))
  socket.on('error', () => end(GOING_AWAY))

  return {
    get busy() {
      return started.size > 0
    },
    endWhenIdle() {
      endWhenIdle = true
      if (started.size === 0) end(GOING_AWAY)
    },
    end: () => end(GOING_AWAY),
  }
}
