import type { RunError } from '@cordon/core'
import { IDLE_CLOSE_CODE, RUN_SLOTS, parseOrder, serveBackend, type Order, type Report, type SandboxBackend } from '@cordon/core/backend'
import WebSocket from 'ws'
import type { Logger } from './log.js'
import type { ServerMetrics } from './metrics.js'
import type { Places } from './places.js'
import type { ResolvedServerOptions } from './server-options.js'

export interface ConnectionContext {
  backend: SandboxBackend
  options: ResolvedServerOptions
  metrics: ServerMetrics
  log: Logger
  /** The caller's id for this connection (its first run's id, or its session's). */
  connectionId: string
  partition: string | undefined
  places: Places
  /** Whether the server is draining (a connection then ends once it has no run in flight). */
  draining(): boolean
}

/** Most tools one run may declare. */
const MAX_TOOLS = 10_000

/** A close code for a caller that broke the protocol (RFC 6455: policy violation). */
const POLICY_VIOLATION = 1008
const GOING_AWAY = 1001

export interface ServedConnection {
  /** Ends the connection once no run is in flight and no session is open (at once when idle). */
  endWhenIdle(): void
  /** Ends the connection now; runs in flight are stopped. */
  end(): void
}

/**
 * One caller's connection: one run at a time, at most one session, every order checked
 * (`parseOrder`, then: is this id one this connection may use; do the limits fit this server)
 * before it reaches the engine. A breach closes the connection, and whatever it started stops.
 * Each run and the session take a place of the server's (a run without one ends BUSY, never
 * started). Idle too long, or idle while draining, it closes with IDLE_CLOSE_CODE, after which
 * nothing it receives is started.
 */
export function serveConnection(socket: WebSocket, context: ConnectionContext): ServedConnection {
  const { backend, options, metrics, log } = context
  /** Runs in flight: when each started, and whether it holds a place of its own (not a session's). */
  const started = new Map<number, { at: number; place: boolean; ref: string }>()
  const knownRuns = new Set<number>()
  let sessionId: number | undefined
  let sessionPlace = false
  let ended = false
  let endWhenIdle = false
  let idleTimer: ReturnType<typeof setTimeout> | undefined
  const idle = () => started.size === 0 && !sessionPlace

  /** Closes the connection once it is idle: at once when draining, after idleConnectionMs otherwise. */
  const watchIdle = () => {
    if (idleTimer !== undefined) clearTimeout(idleTimer)
    idleTimer = undefined
    if (ended || !idle()) return
    if (endWhenIdle) return end(IDLE_CLOSE_CODE)
    idleTimer = setTimeout(() => end(IDLE_CLOSE_CODE), options.idleConnectionMs)
    idleTimer.unref()
  }

  const send = (batch: Report[]) => {
    for (const report of batch) {
      if (report[0] === 'done') runEnded(report[1], report[2].ok ? undefined : report[2].error)
      if (report[0] === 'closed' || (report[0] === 'opened' && report[2] !== null)) releaseSession()
    }
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(batch))
    watchIdle()
  }
  const served = serveBackend(backend, { send }, context.partition === undefined ? {} : { partition: context.partition })

  function runEnded(runId: number, error: RunError | undefined): void {
    const run = started.get(runId)
    if (run === undefined) return
    started.delete(runId)
    if (run.place) context.places.give()
    const code = error?.code ?? 'OK'
    const seconds = (performance.now() - run.at) / 1000
    metrics.runsInFlight.dec()
    metrics.runs.inc({ backend: backend.name, code })
    metrics.runSeconds.observe({ backend: backend.name }, seconds)
    log('info', 'run ended', { runId: run.ref, connection: context.connectionId, code, ms: Math.round(seconds * 10_000) / 10 })
  }

  function releaseSession(): void {
    if (!sessionPlace) return
    sessionPlace = false
    context.places.give()
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
    // A session's runs use the session's place; a one-off run needs one of its own.
    if (order[2] === 0 && !context.places.take()) {
      metrics.refusals.inc({ reason: 'busy' })
      refuseRun(runId, { code: 'BUSY', message: 'the cordon server is running as many programs as it may' })
      return false
    }
    if (idleTimer !== undefined) clearTimeout(idleTimer)
    idleTimer = undefined
    // The time left is the caller's word: never more than its own timeout allows.
    order[4] = { ...runOrder, timeLeftMs: Math.min(runOrder.timeLeftMs, runOrder.limits.timeoutMs) }
    knownRuns.add(runId)
    // The caller's own id for the run, else the connection's id and the run's number on it.
    const ref = runOrder.ref ?? `${context.connectionId}.${runId}`
    started.set(runId, { at: performance.now(), place: order[2] === 0, ref })
    metrics.runsInFlight.inc()
    log('info', 'run started', {
      runId: ref,
      connection: context.connectionId,
      session: order[2] !== 0,
      ...(runOrder.traceparent === undefined ? {} : { traceparent: runOrder.traceparent }),
    })
    return true
  }

  /** Why a session may not open here, if it may not (it takes a place until it closes). */
  function refuseSession(memoryMb: number): RunError | undefined {
    const cap = options.maxLimits.memoryMb
    if (memoryMb > cap) return { code: 'INVALID_OPTIONS', message: `memoryMb ${memoryMb} is over this server's cap of ${cap}` }
    if (context.draining()) return { code: 'BUSY', message: 'the cordon server is shutting down' }
    if (!context.places.take()) {
      metrics.refusals.inc({ reason: 'busy' })
      return { code: 'BUSY', message: 'the cordon server is running as many programs as it may' }
    }
    return undefined
  }

  function breach(problem: string): void {
    log('warn', 'caller broke the channel protocol', { connection: context.connectionId, problem })
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
        const refusal = refuseSession(order[2])
        if (refusal !== undefined) {
          if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify([['opened', order[1], refusal]]))
          continue
        }
        sessionId = order[1]
        sessionPlace = true
        if (idleTimer !== undefined) clearTimeout(idleTimer)
        idleTimer = undefined
      }
      served.receive([order])
    }
  }

  /** Stops what the connection started: its runs, then its session. */
  function end(code: number): void {
    if (ended) return
    ended = true
    if (idleTimer !== undefined) clearTimeout(idleTimer)
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
  watchIdle()
  socket.on('close', () => end(GOING_AWAY))
  socket.on('error', () => end(GOING_AWAY))

  return {
    endWhenIdle() {
      endWhenIdle = true
      watchIdle()
    },
    end: () => end(GOING_AWAY),
  }
}
