import type { ErrorCode } from './errors.js'

export type LogLevel = 'log' | 'info' | 'warn' | 'error' | 'debug'

export const LOG_LEVELS: readonly LogLevel[] = ['log', 'info', 'warn', 'error', 'debug']

export interface LogEntry {
  level: LogLevel
  message: string
}

/** Why a run failed. A plain, serializable object. */
export interface RunError {
  code: ErrorCode
  message: string
  /** The guest error's `name` (`TypeError`, …) for RUNTIME_ERROR and SYNTAX_ERROR. */
  name?: string
  /** The guest's stack as the guest saw it, when the engine gives one. */
  stack?: string
  /** 1-based line in the code the user passed to `run` (fences included). */
  line?: number
  /** 1-based column in that line, when known. */
  column?: number
  /** For limit errors: the limit that was hit, e.g. `{ name: 'timeoutMs', value: 5000 }`. */
  limit?: { name: string; value: number }
}

export interface RunStats {
  /** `name` of the backend that ran the code. */
  backend: string
  /** Wall-clock time of the whole run, normalization included. */
  wallMs: number
  /** CPU time spent in the guest, when the engine reports it. */
  cpuMs?: number
  /** Guest heap in use at the end of the run, when the engine reports it. */
  heapBytes?: number
  toolCalls: number
  logsDropped: number
}

export type RunResult<T = unknown> =
  { ok: true; value: T; logs: LogEntry[]; stats: RunStats } | { ok: false; error: RunError; logs: LogEntry[]; stats: RunStats }
