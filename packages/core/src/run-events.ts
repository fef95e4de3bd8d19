import type { LogLevel, RunResult } from './result.js'

/**
 * What `run(code, { onEvent })` delivers while the run goes on, in the order it happened. Every
 * event has `type` and `atMs`: milliseconds since `run` was called, on the clock of
 * `stats.wallMs`.
 *
 * - `log`: one console entry the run keeps, as `result.logs` will hold it (cut to
 *   `maxLogBytes` with the visible marker). The n-th `log` event is `result.logs[n - 1]`.
 *   Entries over `maxLogEntries` are dropped without an event and counted in
 *   `result.stats.logsDropped`.
 * - `tool-start`, then exactly one `tool-end` or `tool-error` with the same `callId`, for every
 *   call the guest makes to one of the run's tools, all before the `result` event.
 * - `result`: the last event of every run that resolves, carrying the `RunResult` itself.
 */
export type RunEvent = RunLogEvent | ToolStartEvent | ToolEndEvent | ToolErrorEvent | RunResultEvent

/** Called once per event, never awaited; see `RunOptions.onEvent`. */
export type RunEventListener = (event: RunEvent) => unknown

export interface RunLogEvent {
  type: 'log'
  atMs: number
  level: LogLevel
  /** The entry as kept: cut to `maxLogBytes` and ending in `…[truncated]` when it was longer. */
  message: string
  /** The console call's arguments, as in `LogEntry.args` (the `logArgs` option). */
  args?: unknown[]
}

export interface ToolStartEvent {
  type: 'tool-start'
  atMs: number
  /** Numbers the run's tool calls from 1, in the order they reached the host; pairs this event with its end. */
  callId: number
  /** The dotted tool name, e.g. `github.listIssues`. */
  tool: string
  /** Size of the arguments in the wire format (UTF-8 bytes of the text `maxOutputBytes` is checked against). */
  argsBytes: number
  /**
   * The arguments as the host decoded them (a copy), only with `includeToolValuesInEvents: true`.
   * Absent otherwise, and when the arguments could not be decoded.
   */
  args?: unknown
}

export interface ToolEndEvent {
  type: 'tool-end'
  atMs: number
  callId: number
  tool: string
  /** From `tool-start` to the answer, in ms: a wait for a slot under `maxConcurrentToolCalls` included. */
  durationMs: number
  /** Size of the result in the wire format, as it was sent to the guest. */
  resultBytes: number
  /** The result as the guest receives it (a copy), only with `includeToolValuesInEvents: true`. */
  result?: unknown
}

/**
 * Why a call did not give the guest a value:
 * - `refused`: the host refused it before `execute` ran (invalid arguments for the tool's
 *   `inputSchema`, arguments over `maxOutputBytes` or malformed, the call over `maxToolCalls`);
 * - `threw`: `execute` threw or rejected;
 * - `timeout`: the tool's own `timeoutMs` passed;
 * - `invalid-result`: what `execute` returned cannot enter the sandbox (see the value model);
 * - `run-ended`: the run ended (its value was ready, or it was stopped) while the call was
 *   pending; the call's signal aborted and whatever it answers later is dropped.
 */
export type ToolErrorReason = 'refused' | 'threw' | 'timeout' | 'invalid-result' | 'run-ended'

export interface ToolErrorEvent {
  type: 'tool-error'
  atMs: number
  callId: number
  tool: string
  durationMs: number
  reason: ToolErrorReason
  /**
   * The error as the guest sees it: the `name`, `message` and string `code` the tool threw
   * (`TypeError` for refused arguments, `TimeoutError` for a tool's own `timeoutMs`), or, for
   * `run-ended`, why the run ended.
   */
  error: { name: string; message: string; code?: string }
}

export interface RunResultEvent {
  type: 'result'
  atMs: number
  /** The very object `run` resolves with, delivered just before it does. Treat it as read-only. */
  result: RunResult
}
