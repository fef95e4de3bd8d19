import type { RunOptions } from './options.js'
import type { RunResult } from './result.js'
import type { SandboxBackend } from './backend/v1/sandbox-backend.js'
import type { Session, SessionInfo, SessionOptions } from './session-types.js'
import type { ResumeOptions } from './durable/resume-options.js'

export interface Sandbox {
  /** The backend this sandbox runs on. */
  readonly backend: SandboxBackend
  /**
   * Runs `code` (JavaScript or TypeScript, optionally in a markdown fence) and resolves a
   * RunResult. Never rejects for anything the guest does; throws a SandboxError only for
   * host misuse (`INVALID_OPTIONS`, `DISPOSED`). A sandbox with `maxConcurrentRuns` that has
   * no place for the run resolves `BUSY` without starting it.
   */
  run<T = unknown>(code: string, options?: RunOptions): Promise<RunResult<T>>
  /**
   * Continues a paused run (needs `durable` keys): re-runs its program in a fresh guest, answers the
   * recorded tool calls from the continuation's ledger without calling the tools again, gives the
   * paused call `answer` (or `reject`), then runs on live. Resolves a RunResult like `run`: it may
   * pause again, or end with REPLAY_DIVERGED if the program calls tools differently than recorded.
   * Throws INVALID_CONTINUATION for a continuation that is tampered, signed with another key,
   * expired, or made for other code or tools; INVALID_OPTIONS and DISPOSED as `run` does.
   */
  resume<T = unknown>(continuation: string, options: ResumeOptions): Promise<RunResult<T>>
  /**
   * Opens a session: one guest context that keeps its state from run to run (needs
   * `backend.capabilities.sessions`; otherwise throws UNSUPPORTED). Throws INVALID_OPTIONS for
   * bad options and the backend's error (BACKEND_UNAVAILABLE, MEMORY_LIMIT…) if it cannot open.
   */
  createSession(options?: SessionOptions): Promise<Session>
  /** The sessions open now. */
  sessions(): SessionInfo[]
  readonly sessionCount: number
  /** Ends every open session (the sandbox stays usable). */
  disposeAll(): Promise<void>
  /** Ends runs in flight (they resolve ABORTED), ends every session, and disposes the backend. Idempotent. */
  dispose(): Promise<void>
}
