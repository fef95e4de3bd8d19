/**
 * The channel protocol, version 2: the backend contract (runs, tool calls, logs, outcomes,
 * sessions) carried to an engine on the far side of a boundary — a worker thread, a child
 * process, a socket. Messages are JSON-safe arrays whose first element is the kind; they travel
 * in batches (arrays of messages), so a transport may post them as structured clones or write
 * them as JSON frames.
 *
 * Near (the host) → far (the engine's side), "orders":
 * - `['run', runId, sessionId, slot, RunOrder]`   start a run (sessionId 0: a one-off run)
 * - `['stop', runId, code, message]`              the run must end (its stop flag is set too)
 * - `['settle', runId, callId, ok, payload]`      a tool call's answer: wire value, or the error
 *                                                 as `{ name?, message }` JSON
 * - `['open', sessionId, memoryMb, inspector?]`   open a session (`inspector` true: its runs may
 *                                                 have an inspector; see SessionRequest)
 * - `['usage', sessionId, askId]`                 ask a session's heap size
 * - `['close', sessionId]`                        dispose a session
 * - `['inspect-open', runId, inspectId]`          open an inspector session on the run's engine
 *                                                 (runs whose order has `inspector`; see
 *                                                 InspectorHooks)
 * - `['inspect-send', runId, inspectId, message]` a CDP message for that session
 * - `['inspect-close', runId, inspectId]`         end that session
 * - `['inspect-go', runId, phase]`                the host's inspector is ready: the run may go
 *                                                 past `phase` ('start' or 'end')
 *
 * The inspector orders are never accepted from strangers: `parseOrder` refuses them and drops
 * `inspector` from run and open orders (whoever drives an engine's inspector controls its guest).
 *
 * Orders are trusted where the near side is the host itself (a worker, a child it started); a far
 * side that serves strangers (a server) checks each one with `parseOrder` first.
 *
 * Far → near, "reports", each one checked by `parseReport` (the far side may be compromised):
 * - `['hello', version]`                          once, when the far side is ready
 * - `['logs', runId, entries]`                   console entries, packed as the guest runtime packs
 *                                                 them (see unpackLogEntries); consecutive entries of
 *                                                 a run share one report
 * - `['call', runId, callId, name, args]`         a tool call; answered by `settle`
 * - `['done', runId, outcome, alive]`             the run's ExecuteOutcome; `alive`: its session
 *                                                 (if any) can run again
 * - `['opened', sessionId, error | null]`
 * - `['usage', sessionId, askId, bytes]`
 * - `['closed', sessionId]`
 * - `['warn', message]`                           something the host asked to hear of (e.g. a
 *                                                 failed engine free); never about a run
 * - `['call-sync', runId, name, args]`            a synchronous tool call: the far side blocks
 *                                                 until the transport's reply line brings the
 *                                                 `SyncReply` (only where the transport has one)
 * - `['inspect-attached', runId]`                 the run's engine can take inspector sessions
 * - `['inspect-message', runId, inspectId, message]` a CDP message from that session's engine
 * - `['inspect-wait', runId, phase]`              the run waits for `inspect-go` before going past
 *                                                 `phase` (its program's start, its engine's end)
 */
import { ERROR_CODES, type ErrorCode } from '../../errors.js'
import type { RunError } from '../../result.js'
import { LIMIT_NAMES, checkLimit, type Limits, type ResolvedLimits } from '../../limits.js'
import type { ExecuteOutcome, ToolDescriptor } from '../v1/sandbox-backend.js'

export const CHANNEL_VERSION = 2

/** Everything of an ExecuteRequest that crosses: no signal, no host (they stay on the near side). */
export interface RunOrder {
  script: string
  filename: string
  setup: string
  tools: ToolDescriptor[]
  limits: ResolvedLimits
  /** Time left until the deadline when the order was sent: the far side's clock may differ. */
  timeLeftMs: number
  /** The run span's W3C trace context, when the run is traced. */
  traceparent?: string
  /** The near side's own id for the run, for the far side's logs (`[\w.:-]`, at most 100). */
  ref?: string
  /** The run has an inspector (a debugger or a CPU profile): see the inspector orders. Trusted far sides only. */
  inspector?: true
}

/** Where a run with an inspector waits for the host: before its program starts, before its engine goes. */
export type InspectPhase = 'start' | 'end'

export type Order =
  | ['run', number, number, number, RunOrder]
  | ['stop', number, ErrorCode, string]
  | ['settle', number, number, boolean, string]
  | ['open', number, number]
  | ['open', number, number, true]
  | ['usage', number, number]
  | ['close', number]
  | ['inspect-open', number, number]
  | ['inspect-send', number, number, string]
  | ['inspect-close', number, number]
  | ['inspect-go', number, InspectPhase]

export type Report =
  | ['hello', number]
  | ['logs', number, string]
  | ['call', number, number, string, string]
  | ['done', number, ExecuteOutcome, boolean]
  | ['opened', number, RunError | null]
  | ['usage', number, number, number]
  | ['closed', number]
  | ['warn', string]
  | ['call-sync', number, string, string]
  | ['inspect-attached', number]
  | ['inspect-message', number, number, string]
  | ['inspect-wait', number, InspectPhase]

/** The answer to a synchronous tool call: the result in wire format, or the error the guest sees. */
export type SyncReply = { ok: true; value: string } | { ok: false; name?: string; message: string; code?: string }

/** Caps on what a near side may send a far side that serves strangers; anything larger is a breach. */
export interface OrderCaps {
  /** Longest string field (the script, the setup, a tool's answer, a stop message). */
  maxChars: number
  /** Most tools one run may declare. */
  maxTools: number
  /** Highest run slot (exclusive). */
  slots: number
}

/** Caps on what a far side may send; anything larger is a protocol breach. */
export interface ReportCaps {
  /** Longest string field (a log line, tool arguments, an outcome's value or message). */
  maxChars: number
}

const CODES: readonly string[] = ERROR_CODES

const isCode = (value: unknown): value is ErrorCode => typeof value === 'string' && CODES.includes(value)
const isId = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0
const isAmount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0

/**
 * The report in `message`, or a string saying why it is not one. Checks shapes and sizes only;
 * whether a run or session id is one the near side knows is the receiver's check.
 */
export function parseReport(message: unknown, caps: ReportCaps): Report | string {
  if (!Array.isArray(message) || message.length === 0) return 'a report must be a non-empty array'
  const text = (value: unknown): value is string => typeof value === 'string' && value.length <= caps.maxChars
  const [kind, a, b, c, d] = message as unknown[]
  const size = message.length
  switch (kind) {
    case 'hello':
      return size === 2 && isId(a) ? ['hello', a] : 'malformed hello'
    case 'logs':
      return size === 3 && isId(a) && text(b) ? ['logs', a, b] : 'malformed logs'
    case 'call':
      return size === 5 && isId(a) && isId(b) && text(c) && text(d) ? ['call', a, b, c, d] : 'malformed call'
    case 'done': {
      if (size !== 4 || !isId(a) || typeof c !== 'boolean') return 'malformed done'
      const outcome = parseOutcome(b, text)
      return typeof outcome === 'string' ? outcome : ['done', a, outcome, c]
    }
    case 'opened': {
      if (size !== 3 || !isId(a)) return 'malformed opened'
      if (b === null) return ['opened', a, null]
      const error = parseError(b, text)
      return typeof error === 'string' ? error : ['opened', a, error]
    }
    case 'usage':
      return size === 4 && isId(a) && isId(b) && isAmount(c) ? ['usage', a, b, c] : 'malformed usage'
    case 'closed':
      return size === 2 && isId(a) ? ['closed', a] : 'malformed closed'
    case 'warn':
      return size === 2 && text(a) ? ['warn', a] : 'malformed warn'
    case 'call-sync':
      return size === 4 && isId(a) && text(b) && text(c) ? ['call-sync', a, b, c] : 'malformed call-sync'
    case 'inspect-attached':
      return size === 2 && isId(a) ? ['inspect-attached', a] : 'malformed inspect-attached'
    case 'inspect-message':
      return size === 4 && isId(a) && isId(b) && text(c) ? ['inspect-message', a, b, c] : 'malformed inspect-message'
    case 'inspect-wait':
      return size === 3 && isId(a) && (b === 'start' || b === 'end') ? ['inspect-wait', a, b] : 'malformed inspect-wait'
    default:
      return 'unknown report kind'
  }
}

/** Rebuilds the outcome from its known fields only: nothing else the far side put there survives. */
function parseOutcome(value: unknown, text: (value: unknown) => value is string): ExecuteOutcome | string {
  if (typeof value !== 'object' || value === null) return 'malformed outcome'
  const record = value as Record<string, unknown>
  const stats = parseStats(record.stats)
  if (typeof stats === 'string') return stats
  if (record.ok === true) {
    if (!text(record.value)) return 'malformed outcome value'
    return stats === undefined ? { ok: true, value: record.value } : { ok: true, value: record.value, stats }
  }
  if (record.ok !== false) return 'malformed outcome'
  const error = parseError(record.error, text)
  if (typeof error === 'string') return error
  return stats === undefined ? { ok: false, error } : { ok: false, error, stats }
}

function parseError(value: unknown, text: (value: unknown) => value is string): RunError | string {
  if (typeof value !== 'object' || value === null) return 'malformed error'
  const record = value as Record<string, unknown>
  if (typeof record.code !== 'string' || !CODES.includes(record.code) || !text(record.message)) return 'malformed error'
  const error: RunError = { code: record.code as ErrorCode, message: record.message }
  if (record.name !== undefined) {
    if (!text(record.name)) return 'malformed error name'
    error.name = record.name
  }
  if (record.stack !== undefined) {
    if (!text(record.stack)) return 'malformed error stack'
    error.stack = record.stack
  }
  for (const key of ['line', 'column'] as const) {
    const position = record[key]
    if (position === undefined) continue
    if (!Number.isSafeInteger(position) || (position as number) < 1) return 'malformed error position'
    error[key] = position as number
  }
  return error
}

function parseStats(value: unknown): ExecuteOutcome['stats'] | string {
  if (value === undefined) return undefined
  if (typeof value !== 'object' || value === null) return 'malformed stats'
  const record = value as Record<string, unknown>
  const stats: NonNullable<ExecuteOutcome['stats']> = {}
  for (const key of ['cpuMs', 'heapBytes', 'logsDropped'] as const) {
    const amount = record[key]
    if (amount === undefined) continue
    if (!isAmount(amount)) return 'malformed stats'
    stats[key] = amount
  }
  return stats
}

/**
 * The order in `message`, rebuilt from its known fields only, or a string saying why it is not
 * one. For a far side whose near side is not trusted (a server's clients): checks shapes, sizes
 * and that every limit is one core itself would accept. Whether the ids are ones this connection
 * may use, and whether the limits fit the server, are the receiver's checks.
 */
export function parseOrder(message: unknown, caps: OrderCaps): Order | string {
  if (!Array.isArray(message) || message.length === 0) return 'an order must be a non-empty array'
  const text = (value: unknown): value is string => typeof value === 'string' && value.length <= caps.maxChars
  const [kind, a, b, c, d] = message as unknown[]
  const size = message.length
  switch (kind) {
    case 'run': {
      if (size !== 5 || !isId(a) || !isId(b) || !isId(c) || c >= caps.slots) return 'malformed run'
      const order = parseRunOrder(d, text, caps.maxTools)
      return typeof order === 'string' ? order : ['run', a, b, c, order]
    }
    case 'stop':
      return size === 4 && isId(a) && isCode(b) && text(c) ? ['stop', a, b, c] : 'malformed stop'
    case 'settle':
      return size === 5 && isId(a) && isId(b) && typeof c === 'boolean' && text(d) ? ['settle', a, b, c, d] : 'malformed settle'
    case 'open':
      return (size === 3 || (size === 4 && c === true)) && isId(a) && validLimit('memoryMb', b)
        ? ['open', a, b as number]
        : 'malformed open'
    case 'usage':
      return size === 3 && isId(a) && isId(b) ? ['usage', a, b] : 'malformed usage'
    case 'close':
      return size === 2 && isId(a) ? ['close', a] : 'malformed close'
    default:
      return 'unknown order kind'
  }
}

function parseRunOrder(value: unknown, text: (value: unknown) => value is string, maxTools: number): RunOrder | string {
  if (typeof value !== 'object' || value === null) return 'malformed run order'
  const record = value as Record<string, unknown>
  if (!text(record.script) || !text(record.filename) || !text(record.setup)) return 'malformed run order'
  if (!isAmount(record.timeLeftMs)) return 'malformed run order time'
  if (!Array.isArray(record.tools) || record.tools.length > maxTools) return 'malformed run order tools'
  const tools: ToolDescriptor[] = []
  for (const tool of record.tools as unknown[]) {
    if (typeof tool !== 'object' || tool === null) return 'malformed tool'
    const { name, sync } = tool as Record<string, unknown>
    if (!text(name) || typeof sync !== 'boolean') return 'malformed tool'
    tools.push({ name, sync })
  }
  if (typeof record.limits !== 'object' || record.limits === null) return 'malformed limits'
  const given = record.limits as Record<string, unknown>
  const limits = {} as Limits
  for (const name of LIMIT_NAMES) {
    const limit = given[name]
    if (!validLimit(name, limit)) return 'malformed limit ' + name
    limits[name] = limit as number
  }
  const order: RunOrder = {
    script: record.script,
    filename: record.filename,
    setup: record.setup,
    tools,
    limits: Object.freeze(limits),
    timeLeftMs: record.timeLeftMs,
  }
  if (record.ref !== undefined) {
    if (typeof record.ref !== 'string' || !RUN_REF.test(record.ref)) return 'malformed run ref'
    order.ref = record.ref
  }
  if (record.traceparent !== undefined) {
    if (typeof record.traceparent !== 'string' || !TRACEPARENT.test(record.traceparent)) return 'malformed traceparent'
    order.traceparent = record.traceparent
  }
  return order
}

const RUN_REF = /^[\w.:-]{1,100}$/

/** W3C trace context, version 00: `00-<trace id>-<parent id>-<flags>`. */
const TRACEPARENT = /^00-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}$/

function validLimit(name: keyof Limits, value: unknown): boolean {
  try {
    checkLimit(name, value, 'order')
    return true
  } catch {
    return false
  }
}
