import type { CpuProfile } from './inspector/cpu-profile.js'
import type { ErrorCode } from './errors.js'

export type LogLevel = 'log' | 'info' | 'warn' | 'error' | 'debug'

export const LOG_LEVELS: readonly LogLevel[] = ['log', 'info', 'warn', 'error', 'debug']

export interface LogEntry {
  level: LogLevel
  message: string
  /**
   * With the `logArgs` option: the console call's arguments as values (the value model, as a
   * result crosses). Absent when they did not fit in `maxLogBytes` serialized or held a value the
   * model cannot carry (a function, a symbol); `message` is always there.
   */
  args?: unknown[]
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
  /** The id the backend's far side knows the run by, where it keeps logs of its own (a cordon server's). */
  runId?: string
}

/** The program finished with a value. */
export interface RunSuccess<T = unknown> {
  ok: true
  value: T
  logs: LogEntry[]
  stats: RunStats
  /** The guest's CPU profile, when the run asked for one (`cpuProfile`) and the program ran to its end. */
  cpuProfile?: CpuProfile
  interrupted?: undefined
}

/** The program failed or was stopped (see `error.code`). */
export interface RunFailure {
  ok: false
  error: RunError
  logs: LogEntry[]
  stats: RunStats
  /** The guest's CPU profile, when the run asked for one (`cpuProfile`) and the program ran to its end. */
  cpuProfile?: CpuProfile
  interrupted?: undefined
}

/** The call that paused a run. */
export interface RunInterrupt {
  /** `interrupt`: the tool returned `ctx.interrupt(payload)`; `approval`: the tool has `needsApproval`. */
  reason: 'interrupt' | 'approval'
  /** The dotted name of the tool that was called. */
  tool: string
  /** The call's arguments as the tool received them (after validation). */
  args: unknown
  /** What the tool passed to `ctx.interrupt` (undefined for `approval`). Never enters the continuation. */
  payload: unknown
}

/**
 * A tool paused the run (`ctx.interrupt`, `needsApproval`). The guest was stopped and nothing of
 * it is kept; `continuation` is all `sandbox.resume` needs. `ok` is false so that code written for
 * two outcomes treats a pause as "no value"; `interrupted` tells it apart.
 */
export interface RunInterrupted {
  ok: false
  interrupted: true
  /** `code` is always INTERRUPTED (typed as RunError so that results can be copied with a changed error). */
  error: RunError
  interrupt: RunInterrupt
  /** Signed (optionally encrypted) text to pass to `sandbox.resume`; safe to store or send. */
  continuation: string
  /** The continuation's random id, for your own bookkeeping and `durable.claim` (single use). */
  continuationId: string
  /** A paused run has no profile. */
  cpuProfile?: undefined
  /** Logs and stats of this run so far (a resume replays the program, so its logs start over). */
  logs: LogEntry[]
  stats: RunStats
}

/** Narrow with `ok`, then `interrupted`: `if (r.ok) … else if (r.interrupted) … else r.error`. */
export type RunResult<T = unknown> = RunSuccess<T> | RunFailure | RunInterrupted
