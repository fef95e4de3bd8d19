import { SandboxError, isSandboxError } from '../../errors.js'
import type { RunError } from '../../result.js'
import { RunStop, setStopPoll } from '../run-stop.js'
import type { BackendSession, ExecuteOutcome, ExecuteRequest, SandboxBackend } from '../v1/sandbox-backend.js'
import { CHANNEL_VERSION, type Order, type Report, type RunOrder, type SyncReply } from './channel-protocol.js'
import { stopRaised } from './stop-flags.js'
import { FarInspector } from './inspector-relay.js'
import { packLogEntry } from '../log-entries.js'
import { toolFailureError, toolFailureFromPayload, toolFailureOf } from '../../tool-failure.js'

/** A report of console entries grows to about this many characters before the next one starts. */
const LOG_REPORT_CHARS = 256 * 1024

/** How the far side talks to the host. */
export interface FarTransport {
  send(batch: Report[]): void
  /** The host's stop flags (see stop-flags.ts), where memory is shared. */
  flags?: Int32Array
  /**
   * Sends `['call-sync', …]` and blocks until the host answers; undefined when the run was
   * stopped meanwhile. Missing where the transport cannot block (synchronous tools then fail).
   */
  callSync?(report: Report, slot: number): SyncReply | undefined
}

export interface ServeOptions {
  /** The partition of every run and session served (a server serving one caller per connection). */
  partition?: string
}

interface FarRun {
  stop: RunStop
  calls: Map<number, { resolve: (value: string) => void; reject: (error: Error) => void }>
  /** The run's inspector, relayed to the host (runs whose order has `inspector`). */
  inspector?: FarInspector
}

/**
 * The far side of a channel: serves `backend` (an engine running in this thread) to the host at
 * the other end. The host is trusted here: it is the side that protects itself. Reports are
 * batched per turn of this thread's event loop, and flushed early when guest code keeps the
 * thread busy (each stop poll flushes), so logs written before a hang still reach the host.
 */
export function serveBackend(
  backend: SandboxBackend,
  transport: FarTransport,
  options: ServeOptions = {},
): { receive(batch: unknown): void } {
  const runs = new Map<number, FarRun>()
  const sessions = new Map<number, BackendSession>()
  /** Sessions whose open is under way, and those of them closed meanwhile. */
  const opening = new Set<number>()
  const closedEarly = new Set<number>()
  let outbox: Report[] = []
  let flushQueued = false

  const flush = () => {
    flushQueued = false
    if (outbox.length === 0) return
    const batch = outbox
    outbox = []
    transport.send(batch)
  }
  /**
   * A console entry: appended to the run's last report when that is the outbox's last one (the
   * guest sends its entries in batches, so a batch becomes one report), else a new report.
   */
  const queueLog = (runId: number, entry: string) => {
    const last = outbox[outbox.length - 1]
    if (last !== undefined && last[0] === 'logs' && last[1] === runId && last[2].length < LOG_REPORT_CHARS) last[2] += entry
    else queue(['logs', runId, entry])
  }
  const queue = (report: Report) => {
    outbox.push(report)
    if (outbox.length >= 512) flush()
    else if (!flushQueued) {
      flushQueued = true
      queueMicrotask(flush)
    }
  }

  function startRun(runId: number, sessionId: number, slot: number, order: RunOrder): void {
    const stop = new RunStop(order.timeLeftMs)
    const { flags } = transport
    // Polled from the engine's interrupt checks while guest code runs: what the guest logged leaves
    // even while it spins; and where memory is shared, a stop is seen at once. Without shared
    // memory (a page that is not cross-origin isolated) the host ends a spinning far side instead.
    setStopPoll(stop.signal, () => {
      flush()
      if (flags !== undefined && stopRaised(flags, slot)) stop.stop(new SandboxError('ABORTED', 'the run was stopped by its host'))
    })
    const run: FarRun = { stop, calls: new Map() }
    if (order.inspector === true) run.inspector = new FarInspector(runId, queue, stop.signal)
    runs.set(runId, run)
    let nextCall = 0
    const request: ExecuteRequest = {
      script: order.script,
      filename: order.filename,
      setup: order.setup,
      tools: order.tools,
      limits: order.limits,
      deadline: stop.deadline,
      signal: stop.signal,
      ...(options.partition === undefined ? {} : { partition: options.partition }),
      ...(order.traceparent === undefined ? {} : { traceparent: order.traceparent }),
      ...(run.inspector === undefined ? {} : { inspector: run.inspector.hooks }),
      host: {
        log: (level, message, args) => queueLog(runId, packLogEntry(level, message, args)),
        callTool: (name, args) => {
          // A stopped run's calls never leave: a guest flooding calls cannot flood the channel.
          if (stop.signal.aborted) return Promise.reject(new Error('the run has ended'))
          const callId = nextCall++
          const call = new Promise<string>((resolve, reject) => {
            run.calls.set(callId, { resolve, reject })
            queue(['call', runId, callId, name, args])
          })
          // The host ends the run at the call over maxToolCalls; stopping here too, at once, keeps a
          // guest that calls without awaiting from queueing calls faster than that order arrives.
          if (callId >= order.limits.maxToolCalls) {
            stop.stop(new SandboxError('TOOL_CALL_LIMIT', 'more than maxToolCalls (' + order.limits.maxToolCalls + ') tool calls'))
          }
          return call
        },
        callToolSync(name, args) {
          if (transport.callSync === undefined) throw new Error('synchronous tools cannot be called here')
          flush()
          const reply = transport.callSync(['call-sync', runId, name, args], slot)
          if (reply === undefined) {
            // Stopped while it waited: the run ends as stopped, whatever the guest does with the throw.
            stop.stop(new SandboxError('ABORTED', 'the run was stopped by its host'))
            throw new Error('the run has ended')
          }
          if (reply.ok) return reply.value
          throw toolFailureError(toolFailureOf(reply))
        },
      },
    }
    const session = sessionId === 0 ? undefined : sessions.get(sessionId)
    const ran: Promise<ExecuteOutcome> =
      sessionId !== 0 && session === undefined
        ? Promise.resolve(failure({ code: 'BACKEND_CRASHED', message: 'the session is not open' }))
        : (session ?? backend).execute(request)
    ran
      .catch((error: unknown) => failure({ code: 'INTERNAL', message: 'the backend failed: ' + describe(error) }))
      .then((outcome) => {
        stop.finish()
        run.inspector?.end()
        runs.delete(runId)
        for (const call of run.calls.values()) call.reject(new Error('the run has ended'))
        queue(['done', runId, outcome, session?.alive ?? false])
      })
      .catch(() => undefined)
  }

  function receive(order: Order): void {
    switch (order[0]) {
      case 'run':
        return startRun(order[1], order[2], order[3], order[4])
      case 'stop':
        return runs.get(order[1])?.stop.stop(new SandboxError(order[2], order[3]))
      case 'settle': {
        const run = runs.get(order[1])
        const call = run?.calls.get(order[2])
        if (call === undefined) return
        run?.calls.delete(order[2])
        if (order[3]) call.resolve(order[4])
        else call.reject(toolError(order[4]))
        return
      }
      case 'open': {
        const sessionId = order[1]
        if (backend.openSession === undefined) {
          queue(['opened', sessionId, { code: 'UNSUPPORTED', message: 'this backend has no sessions' }])
          return
        }
        opening.add(sessionId)
        backend
          .openSession({
            memoryMb: order[2],
            ...(options.partition === undefined ? {} : { partition: options.partition }),
            ...(order[3] === true ? { inspector: true } : {}),
          })
          .then(
            (session) => {
              opening.delete(sessionId)
              // Closed while it opened (its caller went away): it never serves a run.
              if (closedEarly.delete(sessionId)) {
                void session.dispose().catch(() => undefined)
                return
              }
              sessions.set(sessionId, session)
              queue(['opened', sessionId, null])
            },
            (error: unknown) => {
              opening.delete(sessionId)
              if (!closedEarly.delete(sessionId)) queue(['opened', sessionId, asRunError(error)])
            },
          )
        return
      }
      case 'usage': {
        const [, sessionId, askId] = order
        const session = sessions.get(sessionId)
        const usage = session === undefined ? Promise.resolve(0) : session.memoryUsage()
        usage.then(
          (bytes) => queue(['usage', sessionId, askId, bytes]),
          () => queue(['usage', sessionId, askId, 0]),
        )
        return
      }
      case 'inspect-open':
      case 'inspect-send':
      case 'inspect-close':
      case 'inspect-go':
        return runs.get(order[1])?.inspector?.receive(order)
      case 'close': {
        const sessionId = order[1]
        const session = sessions.get(sessionId)
        sessions.delete(sessionId)
        if (opening.has(sessionId)) closedEarly.add(sessionId)
        const closed = session === undefined ? Promise.resolve() : session.dispose()
        void closed.catch(() => undefined).then(() => queue(['closed', sessionId]))
        return
      }
    }
  }

  queue(['hello', CHANNEL_VERSION])
  return {
    receive(batch) {
      for (const order of batch as Order[]) receive(order)
    },
  }
}

function failure(error: RunError): ExecuteOutcome {
  return { ok: false, error }
}

function asRunError(error: unknown): RunError {
  if (isSandboxError(error)) return { code: error.code, message: error.message }
  return { code: 'BACKEND_CRASHED', message: describe(error) }
}

function toolError(payload: string): Error {
  return toolFailureError(toolFailureFromPayload(payload))
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
