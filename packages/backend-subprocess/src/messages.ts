/**
 * The messages between host and child. Frames are JSON arrays whose first element is
 * the kind. The child side trusts the host; the host side treats every message from the
 * child as hostile and accepts only the exact shapes below (`parseChildMessage`).
 *
 * Host → child: `['init', InitMessage]` once; then either one `['run', RunMessage]` (a
 * one-off child), or `['session']` followed by any number of runs, one after another, each
 * sent only after the last one's `done` (a session child); `['settle', id, ok, payload]`
 * during a run; `['usage']` between the runs of a session, answered by `['usage', heapBytes]`.
 * A synchronous tool call `['call-sync', name, args]` blocks the child until the host's
 * `['sync', reply]` (the guest runtime's callSync text); other frames wait behind it.
 */

/** The host's answer to a synchronous tool call. */
export const SYNC_REPLY = 'sync'

/** What the host sends once, right after spawning. */
export interface InitMessage {
  /** GUEST_RUNTIME_SOURCE of the host's @cordon/core, so host and guest always agree. */
  runtime: string
  /** PRIMORDIALS_SOURCE of the host's @cordon/core: what the child's guards capture before guest code. */
  primordials: string
  /** Test-only: expose the child's `process` to guest code, simulating a node:vm escape. */
  exposeProcess: boolean
}

/** What the host sends to start the run. */
export interface RunMessage {
  setup: string
  script: string
  filename: string
  /** Absolute deadline, `Date.now()` ms. The child never runs guest code past it. */
  deadline: number
  /** Off-heap (ArrayBuffer) budget the child checks at each checkpoint. */
  memoryBytes: number
  /** Error messages and stacks longer than this are cut before they are sent. */
  maxErrorChars: number
}

/** What a child in probe mode reports about itself. */
export interface ProbeReport {
  node: string
  /** Set when the binary is Bun or Deno rather than Node. */
  foreignRuntime: string | null
  /** `process.permission` exists and denies reading /etc/passwd. */
  permissionModel: boolean
  /** Error code of a TCP connect to 127.0.0.1 (`ERR_ACCESS_DENIED`, `ENETUNREACH`, `ECONNREFUSED`…). */
  network: string
  /** `process.pid`, which is 1 inside a new PID namespace. */
  pid: number
  uid: number
}

export type ChildMessage =
  | { kind: 'ready' }
  | { kind: 'probe'; report: ProbeReport }
  /** Console entries as the guest runtime packs them (see unpackLogEntries). */
  | { kind: 'log'; entries: string }
  | { kind: 'call'; id: number; name: string; args: string }
  | { kind: 'call-sync'; name: string; args: string }
  | { kind: 'done'; status: 'ok' | 'error' | 'limit'; payload: string; logsDropped: number; cpuMs: number; heapBytes: number }
  | { kind: 'syntax'; name: string; message: string; line: number | undefined; column: number | undefined }
  | { kind: 'limit'; code: 'MEMORY_LIMIT' | 'TIMEOUT'; message: string }
  | { kind: 'fail'; message: string }
  | { kind: 'usage'; heapBytes: number }

const DONE_STATUSES: readonly string[] = ['ok', 'error', 'limit']
const CHILD_LIMITS: readonly string[] = ['MEMORY_LIMIT', 'TIMEOUT']
const MAX_NOTE_CHARS = 2_000

const isString = (value: unknown): value is string => typeof value === 'string'
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0
const isAmount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0
const optionalPosition = (value: unknown): number | undefined =>
  Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : undefined

/** Returns the message, or a string saying why the frame is not a valid message. */
export function parseChildMessage(frame: unknown[]): ChildMessage | string {
  const [kind, a, b, c, d, e] = frame
  switch (kind) {
    case 'ready':
      return frame.length === 1 ? { kind } : 'malformed ready message'
    case 'log':
      if (frame.length === 2 && isString(a)) return { kind, entries: a }
      return 'malformed log message'
    case 'call':
      if (frame.length === 4 && isCount(a) && a > 0 && isString(b) && isString(c)) return { kind, id: a, name: b, args: c }
      return 'malformed tool call message'
    case 'call-sync':
      if (frame.length === 3 && isString(a) && isString(b)) return { kind, name: a, args: b }
      return 'malformed synchronous tool call message'
    case 'done':
      if (frame.length === 6 && isString(a) && DONE_STATUSES.includes(a) && isString(b) && isCount(c) && isAmount(d) && isAmount(e)) {
        return { kind, status: a as 'ok' | 'error' | 'limit', payload: b, logsDropped: c, cpuMs: d, heapBytes: e }
      }
      return 'malformed done message'
    case 'syntax':
      if (frame.length === 5 && isString(a) && isString(b)) {
        return { kind, name: a.slice(0, 100), message: b.slice(0, MAX_NOTE_CHARS), line: optionalPosition(c), column: optionalPosition(d) }
      }
      return 'malformed syntax error message'
    case 'limit':
      if (frame.length === 3 && isString(a) && CHILD_LIMITS.includes(a) && isString(b)) {
        return { kind, code: a as 'MEMORY_LIMIT' | 'TIMEOUT', message: b.slice(0, MAX_NOTE_CHARS) }
      }
      return 'malformed limit message'
    case 'fail':
      if (frame.length === 2 && isString(a)) return { kind, message: a.slice(0, MAX_NOTE_CHARS) }
      return 'malformed failure message'
    case 'usage':
      if (frame.length === 2 && isAmount(a)) return { kind, heapBytes: a }
      return 'malformed usage message'
    case 'probe':
      return parseProbe(a)
    default:
      return `unknown message kind ${JSON.stringify(String(kind).slice(0, 40))}`
  }
}

function parseProbe(value: unknown): ChildMessage | string {
  if (typeof value !== 'object' || value === null) return 'malformed probe report'
  const r = value as Record<string, unknown>
  if (
    !isString(r.node) ||
    !(r.foreignRuntime === null || isString(r.foreignRuntime)) ||
    typeof r.permissionModel !== 'boolean' ||
    !isString(r.network) ||
    !isCount(r.pid) ||
    !Number.isSafeInteger(r.uid)
  ) {
    return 'malformed probe report'
  }
  return {
    kind: 'probe',
    report: {
      node: r.node,
      foreignRuntime: r.foreignRuntime,
      permissionModel: r.permissionModel,
      network: r.network,
      pid: r.pid,
      uid: r.uid as number,
    },
  }
}
