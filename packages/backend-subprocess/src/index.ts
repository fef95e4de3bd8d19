import { createBackend, type SubprocessBackend } from './subprocess-backend.js'
import type { SubprocessBackendOptions } from './options.js'

export type { SubprocessBackend } from './subprocess-backend.js'
export type { NetworkIsolationMode, SubprocessBackendOptions } from './options.js'
export type { Diagnostics as SubprocessDiagnostics } from './probe.js'

/**
 * A backend that runs each program in a fresh, locked-down Node.js child process taken
 * from a warm pool. No I/O happens until the first run (or `diagnose()` / `warm()`).
 */
export function createSubprocessBackend(options?: SubprocessBackendOptions): SubprocessBackend {
  return createBackend(options, { exposeProcess: false })
}
