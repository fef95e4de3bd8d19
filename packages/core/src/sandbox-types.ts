import type { RunOptions } from './options.js'
import type { RunResult } from './result.js'
import type { SandboxBackend } from './spec/v1/backend.js'

export interface Sandbox {
  /** The backend this sandbox runs on. */
  readonly backend: SandboxBackend
  /**
   * Runs `code` (JavaScript or TypeScript, optionally in a markdown fence) and resolves a
   * RunResult. Never rejects for anything the guest does; throws a SandboxError only for
   * host misuse (`INVALID_OPTIONS`, `DISPOSED`).
   */
  run<T = unknown>(code: string, options?: RunOptions): Promise<RunResult<T>>
  /** Ends runs in flight (they resolve ABORTED) and disposes the backend. Idempotent. */
  dispose(): Promise<void>
}
