import { SandboxError, type ExecuteOutcome, type ExecuteRequest, type SandboxBackend } from '@cordon/core'
import { QUICKJS_CAPABILITIES } from './capabilities.js'
import { describeError } from './engine-failure.js'
import { engineLoader, type Engine } from './engine-loader.js'
import { EnginePool } from './engine-pool.js'
import { createFreshEngine, type FreshEngine } from './fresh-engine.js'
import { runGuest } from './guest-run.js'
import { resolveOptions, type QuickJSBackendOptions } from './options.js'

/**
 * A backend that runs each guest in QuickJS compiled to WebAssembly, in a WASM instance of its
 * own whose memory is capped at `memoryMb`. Nothing is loaded until the first run.
 */
export function createQuickJSBackend(options?: QuickJSBackendOptions): SandboxBackend {
  const settings = resolveOptions(options)
  const loadEngine = engineLoader(settings)
  let engine: Engine | undefined
  const pool = new EnginePool(settings.poolSize, async (capPages) =>
    createFreshEngine(engine ?? (engine = await loadEngine()), capPages, settings.maxStackSizeBytes),
  )

  async function execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    if (request.signal.aborted) return notStarted(request)
    try {
      engine ??= await loadEngine()
    } catch (error) {
      return { ok: false, error: { code: 'BACKEND_UNAVAILABLE', message: unavailableMessage(error) } }
    }
    let fresh: FreshEngine
    try {
      fresh = await pool.take(engine.capPagesFor(request.limits.memoryMb))
    } catch (error) {
      if (SandboxError.isInstance(error) && error.code === 'BACKEND_UNAVAILABLE') {
        return { ok: false, error: { code: 'BACKEND_UNAVAILABLE', message: unavailableMessage(error) } }
      }
      if (SandboxError.isInstance(error) && error.code === 'MEMORY_LIMIT') return { ok: false, error: { code: 'MEMORY_LIMIT', message: error.message } }
      return { ok: false, error: { code: 'BACKEND_CRASHED', message: `QuickJS backend: could not start an engine: ${describeError(error)}` } }
    }
    return runGuest(fresh, request, settings.onDisposeError)
  }

  return {
    specificationVersion: 'v1',
    name: 'quickjs',
    capabilities: QUICKJS_CAPABILITIES,
    execute,
    async dispose() {
      pool.close()
    },
  }
}

function notStarted(request: ExecuteRequest): ExecuteOutcome {
  const reason: unknown = request.signal.reason
  if (SandboxError.isInstance(reason)) return { ok: false, error: { code: reason.code, message: reason.message } }
  return { ok: false, error: { code: 'ABORTED', message: 'the run was aborted before it started' } }
}

function unavailableMessage(error: unknown): string {
  if (SandboxError.isInstance(error)) return error.fix === undefined ? error.message : `${error.message}. ${error.fix}`
  return `QuickJS could not be loaded: ${describeError(error)}`
}
