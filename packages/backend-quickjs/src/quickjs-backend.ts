import type { QuickJSBackend } from './diagnostics.js'
import { createInlineBackend } from './inline-backend.js'
import { resolveOptions, type QuickJSBackendOptions } from './options.js'
import { createWorkerBackend } from './worker-backend.js'

/**
 * A backend that runs each guest in QuickJS compiled to WebAssembly, in a WASM instance of its
 * own whose memory is capped at `memoryMb`: one instance per run, or per session. By default the
 * instances live in worker threads (`thread: 'worker'`), so a guest can never hold the host's
 * event loop; `thread: 'inline'` keeps them on the host's thread. Nothing is loaded until the
 * first run (or `prepare()`); `diagnose()` says which engine runs and where its engines come from.
 */
export function createQuickJSBackend(options?: QuickJSBackendOptions): QuickJSBackend {
  const settings = resolveOptions(options)
  return settings.thread === 'inline' ? createInlineBackend(settings) : createWorkerBackend(settings)
}
