import { createBackend, type SubprocessBackend } from './subprocess-backend.js'
import type { SubprocessBackendOptions } from './options.js'

export type { SubprocessBackend } from './subprocess-backend.js'
export type { NetworkIsolationMode, SubprocessBackendOptions, SubprocessEngine } from './options.js'
export type { Diagnostics as SubprocessDiagnostics } from './probe.js'

/**
 * A backend that runs each program inside locked-down Node.js child processes: by default a
 * fresh V8 isolate (or QuickJS instance) per run in long-lived children, or with
 * `engine: 'node-vm'` a fresh child per run. No I/O happens until the first run (or
 * `diagnose()` / `warm()`).
 */
export function createSubprocessBackend(options?: SubprocessBackendOptions): SubprocessBackend {
  return createBackend(options, { exposeProcess: false })
}
