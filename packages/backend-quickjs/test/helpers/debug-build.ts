import type { SandboxBackend } from '@cordon/core/backend'
import { createQuickJSBackend, type QuickJSThread } from '../../src/index.js'

/**
 * A backend on QuickJS's debug build, which asserts when an engine is freed with an object
 * still alive; the backend reports such failures through `onDisposeError`, collected here.
 */
export function debugBuildBackend(thread: QuickJSThread = 'worker'): { backend: SandboxBackend; disposeErrors: unknown[] } {
  const disposeErrors: unknown[] = []
  const backend = createQuickJSBackend({
    thread,
    // Named by its package, so worker threads can import it too.
    variant: '@jitl/quickjs-wasmfile-debug-sync',
    wasmModule: () => new URL(import.meta.resolve('@jitl/quickjs-wasmfile-debug-sync/wasm')),
    onDisposeError: (error) => disposeErrors.push(error),
  })
  return { backend, disposeErrors }
}
