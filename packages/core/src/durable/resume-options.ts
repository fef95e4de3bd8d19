import type { RunEventListener } from '../run-events.js'
import type { ToolSet } from '../options.js'
import type { ModuleMap } from '../modules/module-options.js'

/** `sandbox.resume(continuation, options)`: exactly one of `answer` and `reject`. */
export interface ResumeOptions {
  /**
   * The paused call's result, as if the tool had returned it (it must fit the value model). For a
   * `needsApproval` pause, any answer approves: the tool's `execute` then runs, and its value is unused.
   */
  answer?: unknown
  /** Reject the paused call instead: the guest's `await` throws an `Error` with this message. */
  reject?: string | Error
  /**
   * The tools again (host functions cannot travel in a continuation). Their names, `sync`, schemas
   * and `needsApproval` must be those of the paused run. Default: the sandbox's default tools.
   */
  tools?: ToolSet
  /**
   * The globals again (default: the sandbox's). They are not kept in the continuation (they may be
   * large or secret); if the program's tool calls change with them, the resume ends REPLAY_DIVERGED.
   */
  globals?: Record<string, unknown>
  /**
   * The modules again (default: the sandbox's). Loaders run once more; the names and sources must
   * be those of the paused run, or the resume is refused (INVALID_CONTINUATION).
   */
  modules?: ModuleMap
  /** When given, must be the code the run was started with; otherwise the resume is refused. */
  code?: string
  signal?: AbortSignal
  onEvent?: RunEventListener
  includeToolValuesInEvents?: boolean
  /** As for `Sandbox.run`; the sandbox's own setting when omitted. */
  logArgs?: boolean
}
