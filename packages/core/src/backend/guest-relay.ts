import type { ExecuteOutcome, ExecuteRequest } from './v1/sandbox-backend.js'
import type { RelayFunctions } from '../guest/protocol.js'
import type { ErrorCode } from '../errors.js'
import type { RunError } from '../result.js'
import { unpackLogEntries } from './log-entries.js'
import { RUN_ENDED_REPLY } from './run-stop.js'
import { toolFailureOf, toolFailurePayload } from '../tool-failure.js'

/** The two calls a backend makes into its engine's GuestRuntime. */
export interface GuestEngine {
  settle(id: number, ok: boolean, payload: string): void
  fire(id: number): void
}

export interface GuestDone {
  status: 'ok' | 'error' | 'limit'
  payload: string
  logsDropped: number
}

/**
 * The relay: the host half of the guest protocol for backends that run the guest in this
 * process (QuickJS, isolated-vm): it forwards logs and tool calls to the run's
 * ToolBridge, runs guest timers on host timers, and reports when the guest is done.
 * A backend wires `functions` into its engine and calls `connect` with the engine's
 * `settle`/`fire`. After `close`, every late event is ignored.
 */
export interface GuestRelay {
  readonly functions: RelayFunctions
  /** Resolves when the guest calls `done`. */
  readonly done: Promise<GuestDone>
  connect(engine: GuestEngine): void
  /**
   * Nothing the host holds can wake the guest again: no tool call in flight, no timer set, and
   * the guest has not reported. Asked when the engine's job queue is empty after an entry; if
   * so, the backend calls the runtime's `stall` (the run ends DEADLOCK).
   */
  stalled(): boolean
  close(): void
}

const GUEST_LIMIT_CODES: readonly ErrorCode[] = ['OUTPUT_LIMIT', 'TOOL_CALL_LIMIT', 'MEMORY_LIMIT', 'TIMEOUT', 'DEADLOCK']

export function createGuestRelay(request: ExecuteRequest): GuestRelay {
  let engine: GuestEngine | undefined
  let closed = false
  let reported = false
  /** Async tool calls whose answer has not come back yet. */
  let calls = 0
  let resolveDone!: (done: GuestDone) => void
  const done = new Promise<GuestDone>((resolve) => {
    resolveDone = resolve
  })
  const timers = new Map<number, ReturnType<typeof setTimeout>>()

  const functions: RelayFunctions = {
    log(entries) {
      if (closed) return
      unpackLogEntries(String(entries), (level, message, args) => request.host.log(level, message, args))
    },
    call(id, name, argsWire) {
      if (closed) return
      calls++
      request.host.callTool(String(name), String(argsWire)).then(
        (value) => {
          calls--
          if (!closed) engine?.settle(id, true, value)
        },
        (error: unknown) => {
          calls--
          if (!closed) engine?.settle(id, false, toolErrorPayload(error))
        },
      )
    },
    callSync(name, argsWire) {
      if (closed) return RUN_ENDED_REPLY
      return syncToolReply(request.host, String(name), String(argsWire))
    },
    timer(id, delayMs) {
      if (closed) return
      const existing = timers.get(id)
      if (existing !== undefined) clearTimeout(existing)
      timers.delete(id)
      if (delayMs < 0) return
      timers.set(
        id,
        setTimeout(() => {
          timers.delete(id)
          if (!closed) engine?.fire(id)
        }, delayMs),
      )
    },
    done(status, payload, logsDropped) {
      if (closed) return
      reported = true
      resolveDone({ status, payload: String(payload), logsDropped: Number(logsDropped) || 0 })
    },
  }

  return {
    functions,
    done,
    connect(next) {
      engine = next
    },
    stalled() {
      return !closed && !reported && calls === 0 && timers.size === 0
    },
    close() {
      closed = true
      for (const handle of timers.values()) clearTimeout(handle)
      timers.clear()
    },
  }
}

/** What the guest sees of a failed tool: its name, message and string code (see tool-failure.ts), as JSON. */
export function toolErrorPayload(error: unknown): string {
  return toolFailurePayload(error)
}

/** Turns the guest's `done` report (untrusted data) into an ExecuteOutcome. */
export function outcomeFromDone(done: GuestDone): ExecuteOutcome {
  const stats = { logsDropped: done.logsDropped }
  if (done.status === 'ok') return { ok: true, value: done.payload, stats }
  let parsed: Record<string, unknown> = {}
  try {
    const value: unknown = JSON.parse(done.payload)
    if (typeof value === 'object' && value !== null) parsed = value as Record<string, unknown>
  } catch {
    // A malformed report is described below rather than trusted.
  }
  const message = typeof parsed.message === 'string' ? parsed.message : 'the guest reported an unreadable error'
  if (done.status === 'limit') {
    const code = GUEST_LIMIT_CODES.includes(parsed.code as ErrorCode) ? (parsed.code as ErrorCode) : 'INTERNAL'
    return { ok: false, error: { code, message }, stats }
  }
  const error: RunError = { code: 'RUNTIME_ERROR', message }
  if (typeof parsed.name === 'string') error.name = parsed.name
  if (typeof parsed.stack === 'string') error.stack = parsed.stack
  return { ok: false, error, stats }
}

/**
 * Runs a synchronous tool and answers as the guest runtime's `callSync` reads it:
 * `{"ok":true,"value":<wire>}`, or the tool's error as `{"ok":false,"name","message","code"?}`.
 */
export function syncToolReply(host: ExecuteRequest['host'], name: string, argsWire: string): string {
  try {
    return `{"ok":true,"value":${host.callToolSync(name, argsWire)}}`
  } catch (error) {
    return JSON.stringify({ ok: false, ...toolFailureOf(error) })
  }
}
