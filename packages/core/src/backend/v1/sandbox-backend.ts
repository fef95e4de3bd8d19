import type { InspectorHooks } from './inspector-hooks.js'
import type { LogLevel, RunError } from '../../result.js'
import type { BackendCapabilities } from './capabilities.js'
import type { ResolvedLimits } from '../../limits.js'

/**
 * A tool as the backend sees it: only its name. Validation, counting and the
 * host function itself stay in @cordon/core, behind `ToolBridge.callTool`.
 */
export interface ToolDescriptor {
  /** Dotted name, e.g. `github.listIssues`. */
  name: string
  /** Called without `await` (needs `capabilities.syncHostCalls`). */
  sync: boolean
}

/** What @cordon/core does for a run (logs, tool calls), given to the backend as `request.host`. Treat its inputs as hostile. */
export interface ToolBridge {
  /**
   * Record one console entry. Caps are applied here; the backend need not check. `args`: the
   * console call's arguments in wire format, when the run asked for them (`logArgs`).
   */
  log(level: LogLevel, message: string, args?: string): void
  /**
   * Run a tool. `argsWire` is the arguments in the wire format (see `wire.ts`).
   * Resolves to the result in wire format, or rejects with an `Error` whose message
   * may be shown to the guest. When the run must end (tool-call limit, oversized
   * arguments) it also aborts `ExecuteRequest.signal` with the reason.
   */
  callTool(name: string, argsWire: string): Promise<string>
  /**
   * A synchronous tool call (only for `sync: true` tools). Returns the result in wire
   * format or throws an `Error` whose message may be shown to the guest.
   */
  callToolSync(name: string, argsWire: string): string
}

export interface ExecuteRequest {
  /**
   * JavaScript source of one expression: an `async function` whose body is the
   * user's normalized program. Compile it under `filename`; calling the function
   * runs the program.
   */
  script: string
  /** The file name to compile `script` under, so stacks read `guest.js:LINE:COL`. */
  filename: string
  /** JSON text passed to the guest runtime's `install` (see guest/protocol.ts). */
  setup: string
  tools: readonly ToolDescriptor[]
  limits: ResolvedLimits
  /**
   * Absolute deadline in `Date.now()` milliseconds, for checks inside the engine (an interrupt
   * handler, a child process's own timer). The backend needs no timer for it: `signal` aborts then.
   */
  deadline: number
  /**
   * Aborted when the run must end for any reason: the deadline (the caller aborts it then at the
   * latest, with a TIMEOUT SandboxError), the user's abort, a limit the host enforces. The backend
   * must stop the guest promptly and resolve; `watchStop` watches it, `stopError` words the
   * outcome. Whoever calls `execute` without @cordon/core makes it with a `RunStop`.
   */
  signal: AbortSignal
  host: ToolBridge
  /**
   * Runs of different partitions must never share an engine process (see `RunOptions.partition`);
   * core always sets it. A backend whose runs never share a process may ignore it.
   */
  partition?: string
  /**
   * The W3C trace context (`traceparent`) of the run's `cordon.run` span, when OpenTelemetry
   * records the run: a backend whose far side logs or traces (the remote one) passes it on.
   */
  traceparent?: string
  /**
   * Set when the run asked for a debugger or a CPU profile (only for a backend whose
   * `capabilities.inspector` is true): the backend connects the guest's engine to it (see
   * InspectorHooks). A backend that has it must not hand anything over synchronously on the
   * host's thread, since a debugger may pause the guest at any statement.
   */
  inspector?: InspectorHooks
}

/** Facts a backend may report about a finished run. */
export interface BackendRunStats {
  cpuMs?: number
  heapBytes?: number
  /** Log entries the guest dropped itself before sending them (its own cap). */
  logsDropped?: number
  /** The id the far side's own logs know the run by (a remote backend's server). */
  runId?: string
}

export type ExecuteOutcome =
  | { ok: true; /** The value in wire format. */ value: string; stats?: BackendRunStats }
  | { ok: false; error: RunError; stats?: BackendRunStats }

/**
 * The backend contract, version 1. A backend runs already-normalized code with
 * resolved limits; @cordon/core does everything else.
 *
 * Rules: no I/O at import or construction; the engine loads on first use and a load
 * failure resolves `BACKEND_UNAVAILABLE`; `execute` never rejects for anything the
 * guest does; nothing from the host (functions, engine handles) is reachable by guest code.
 */
export interface SandboxBackend {
  readonly specificationVersion: 'v1'
  readonly name: string
  readonly capabilities: BackendCapabilities
  execute(request: ExecuteRequest): Promise<ExecuteOutcome>
  /**
   * Starts getting ready for a run (loading the engine, starting a worker or a child) and
   * returns at once; the run itself still waits for whatever it needs. Core calls it as a run,
   * resume or session begins, before it checks and normalizes the program, so that loading
   * overlaps core's own work. Idempotent, never throws; after `dispose` it starts nothing.
   */
  prepare?(): void
  /**
   * What shows that this backend, configured as it is, has already run programs on this machine
   * (the subprocess backend's launch-plan cache entry, say), or undefined. A selection
   * (@cordon/select) may then take it without a probe run, so the backend must recover from stale
   * evidence itself: a run that finds the engine gone checks again and runs, rather than fail.
   * Synchronous (a small local read at most) and cheap; never throws.
   */
  provenHere?(): string | undefined
  /**
   * Opens a long-lived guest context (required when `capabilities.sessions` is true). May
   * reject with a SandboxError (`BACKEND_UNAVAILABLE`, `MEMORY_LIMIT` when `memoryMb` cannot
   * even hold the engine); core turns anything else into `BACKEND_CRASHED`.
   */
  openSession?(request: SessionRequest): Promise<BackendSession>
  /** Free every engine resource. Idempotent. */
  dispose(): Promise<void>
}

export interface SessionRequest {
  /** The memory cap of the whole session, enforced as for a single run. */
  memoryMb: number
  /** As for `ExecuteRequest.partition`. */
  partition?: string
  /**
   * The session's runs may come with `ExecuteRequest.inspector`: make its engine able to take
   * inspector sessions (for V8, an isolate made with its inspector). Only asked of a backend whose
   * `capabilities.inspector` is true.
   */
  inspector?: boolean
}

/**
 * One guest context that outlives a run. Core calls `execute` one run at a time, never
 * concurrently. The guest runtime is created on the first run and `install`ed again for every
 * run (each install starts a new run, see guest/protocol.ts); the guest's globals persist.
 *
 * A run that the backend had to stop from outside (its `signal` aborted, the deadline passed,
 * memory ran out, the engine failed) may leave the context half-way through guest code: the
 * backend then frees the context and reports `alive === false`; core ends the session.
 */
export interface BackendSession {
  readonly alive: boolean
  execute(request: ExecuteRequest): Promise<ExecuteOutcome>
  /** Bytes of guest heap in use now, as the engine counts them. */
  memoryUsage(): Promise<number>
  /** Frees the context. Idempotent. */
  dispose(): Promise<void>
}
