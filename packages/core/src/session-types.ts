import type { ErrorCode } from './errors.js'
import type { Limits } from './limits.js'
import type { RunOptions } from './options.js'
import type { RunResult } from './result.js'

/**
 * Options of `sandbox.createSession`. Limits are the defaults of each of the session's runs,
 * except `memoryMb`, which caps the session's engine as a whole. `tools` is the grant: a run
 * may narrow it, never widen it. `globals` are set once, before the first run. `onEvent` (and
 * `includeToolValuesInEvents`) apply to every run of the session that does not set its own.
 * `inspector` and `cpuProfile` apply to every run that does not set its own, and open the
 * session's engine for them (needs `capabilities.inspector`, else createSession throws
 * UNSUPPORTED): only such a session's runs may use them.
 */
export interface SessionOptions extends Omit<RunOptions, 'signal' | 'fetch' | 'modules'> {
  /** Names the session in `sandbox.sessions()`; unique per sandbox. Default `session-<n>`. */
  id?: string
}

/** Options of `session.run`. `memoryMb` is the session's, not a run's. */
export interface SessionRunOptions extends Omit<Partial<Limits>, 'memoryMb'> {
  /**
   * Narrows the session's tools for this run: names of granted tools (`'github.listIssues'`) or
   * granted namespaces (`'github'`). Omitted: every granted tool.
   */
  tools?: readonly string[]
  /** Set as global variables before this run (they persist like any global). */
  globals?: Record<string, unknown>
  signal?: AbortSignal
  /** This run's events, as for `Sandbox.run`; replaces the session's own `onEvent` for this run. */
  onEvent?: RunOptions['onEvent']
  /** As for `Sandbox.run`; the session's own setting when omitted. */
  includeToolValuesInEvents?: boolean
  /** As for `Sandbox.run`; the session's own setting when omitted. */
  logArgs?: boolean
  /**
   * As for `Sandbox.run` (a debugger on this run; `false` turns the session's off); the session's
   * own setting when omitted. Needs a session opened with `inspector` or `cpuProfile`, else the
   * run ends UNSUPPORTED.
   */
  inspector?: RunOptions['inspector']
  /** As for `Sandbox.run`, with the same needs as `inspector`; the session's own setting when omitted. */
  cpuProfile?: RunOptions['cpuProfile']
}

/** Why a session can no longer run code. */
export interface SessionEnd {
  /** `DISPOSED` when the host disposed it; otherwise the code of the run that ended it. */
  code: ErrorCode
  message: string
}

export interface SessionInfo {
  id: string
  /** The backend's name. */
  backend: string
  createdAt: Date
  /** Runs started so far (queued ones not counted). */
  runs: number
  /** The session's memory cap. */
  memoryMb: number
  /** Guest heap in use at the last measurement (a run's end or `memoryUsage()`), when the engine reports it. */
  heapBytes?: number
  /** A run is executing. */
  busy: boolean
}

export interface Session {
  readonly id: string
  /** Set once the session cannot run code any more, and why. */
  readonly ended: SessionEnd | undefined
  /**
   * Runs `code` in the session: its top-level declarations (`const`, `let`, `var`, `function`,
   * `class`) and any global it sets are there for the next run. Runs of one session are queued:
   * each starts, and its deadline starts, when the previous one is over. Resolves a RunResult
   * like `Sandbox.run`. A run stopped from outside (timeout, abort, tool-call limit, oversized
   * tool arguments) or that exhausts memory or crashes the engine ends the session; runs queued
   * behind it resolve ABORTED, later calls throw DISPOSED.
   */
  run<T = unknown>(code: string, options?: SessionRunOptions): Promise<RunResult<T>>
  /** Measures the engine's heap now. Throws DISPOSED once the session has ended. */
  memoryUsage(): Promise<{ heapBytes: number; memoryMb: number }>
  info(): SessionInfo
  /** Ends the session: runs in flight or queued resolve ABORTED; frees the engine. Idempotent. */
  dispose(): Promise<void>
}
