import { SandboxError } from '@cordon/core'
import type { BackendSession, ExecuteOutcome, ExecuteRequest, SandboxBackend, SessionRequest } from '@cordon/core/backend'
import { INLINE_CAPABILITIES } from './capabilities.js'
import { describeError } from './engine-failure.js'
import { notStarted, unavailableMessage } from './not-run.js'
import { engineLoader, type Engine } from './engine-loader.js'
import { EnginePool } from './pool.js'
import { adoptEngineImage, createFreshEngine, engineImage } from './fresh-engine.js'
import type { EngineImage } from './engine-image.js'
import type { ResolvedQuickJSOptions } from './options.js'
import { SessionEngine, makeReadyEngine, releaseReadyEngine, type ReadyEngine } from './session.js'

/** What the worker mode adds to the inline backend it runs in each worker. */
export interface InlineExtras {
  /** Send console entries in batches the run engine pulls (see run-engine.ts). */
  pullLogs?: boolean
  /** An engine image another worker of the pool took (see adoptEngineImage). */
  sharedImage?: EngineImage
  /** Called once with the engine image this backend took itself, for the pool to share. */
  onImageTaken?: (image: EngineImage) => void
}

/**
 * QuickJS on this thread: each guest in a WASM instance of its own whose memory is capped at
 * `memoryMb`, one instance per run or per session. Nothing is loaded until the first run. The
 * worker mode runs this same backend inside each worker, with its InlineExtras.
 */
export function createInlineBackend(
  settings: ResolvedQuickJSOptions,
  { pullLogs = false, sharedImage, onImageTaken }: InlineExtras = {},
): SandboxBackend {
  const loadFirst = engineLoader(settings)
  let imageShared = false
  const loadEngine = async (): Promise<Engine> => {
    const loaded = await loadFirst()
    if (settings.engineImage && !imageShared) {
      imageShared = true
      shareImage(loaded, settings.maxStackSizeBytes, sharedImage, onImageTaken)
    }
    return loaded
  }
  let engine: Engine | undefined
  const pool = new EnginePool(
    settings.poolSize,
    async (capPages) =>
      makeReadyEngine(
        await createFreshEngine(engine ?? (engine = await loadEngine()), capPages, settings.maxStackSizeBytes, settings.engineImage),
        settings.onDisposeError,
        pullLogs,
      ),
    releaseReadyEngine,
  )
  const sessions = new Set<SessionEngine>()

  /** An engine with its guest runtime made, for `memoryMb`. Throws a SandboxError saying why not. */
  async function open(memoryMb: number, keepEngine: boolean): Promise<SessionEngine> {
    try {
      engine ??= await loadEngine()
    } catch (error) {
      throw SandboxError.isInstance(error) && error.code === 'BACKEND_UNAVAILABLE'
        ? error
        : new SandboxError('BACKEND_UNAVAILABLE', unavailableMessage(error, 'QuickJS could not be loaded'), { cause: error })
    }
    let ready: ReadyEngine
    try {
      ready = await pool.take(engine.capPagesFor(memoryMb))
    } catch (error) {
      // BACKEND_UNAVAILABLE, MEMORY_LIMIT, or the guest runtime failing to start (BACKEND_CRASHED).
      if (SandboxError.isInstance(error)) throw error
      throw new SandboxError('BACKEND_CRASHED', `QuickJS backend: could not start an engine: ${describeError(error)}`, { cause: error })
    }
    if (!keepEngine) return SessionEngine.open(ready, { keepEngine, onDisposeError: settings.onDisposeError })
    const session = SessionEngine.open(ready, {
      keepEngine,
      onDisposeError: settings.onDisposeError,
      onRelease: () => sessions.delete(session),
    })
    sessions.add(session)
    return session
  }

  async function execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    if (request.signal.aborted) return notStarted(request)
    let once: SessionEngine
    try {
      once = await open(request.limits.memoryMb, false)
    } catch (error) {
      if (SandboxError.isInstance(error) && error.code === 'BACKEND_UNAVAILABLE')
        return { ok: false, error: { code: error.code, message: unavailableMessage(error, 'QuickJS could not be loaded') } }
      if (SandboxError.isInstance(error)) return { ok: false, error: { code: error.code, message: error.message } }
      return {
        ok: false,
        error: { code: 'BACKEND_CRASHED', message: `QuickJS backend: could not start an engine: ${describeError(error)}` },
      }
    }
    // A one-off run lets its engine go when it ends, however it ends.
    return once.execute(request)
  }

  return {
    specificationVersion: 'v1',
    name: 'quickjs',
    capabilities: INLINE_CAPABILITIES,
    execute,
    openSession: (request: SessionRequest): Promise<BackendSession> => open(request.memoryMb, true),
    async dispose() {
      pool.close()
      await Promise.all([...sessions].map((session) => session.dispose()))
    },
  }
}

/** Starts the engine's image from the shared one, or reports the one it takes. */
function shareImage(
  engine: Engine,
  maxStackSizeBytes: number,
  shared: EngineImage | undefined,
  onTaken: InlineExtras['onImageTaken'],
): void {
  if (shared !== undefined) adoptEngineImage(engine, maxStackSizeBytes, shared)
  if (onTaken === undefined) return
  void engineImage(engine, maxStackSizeBytes).then((image) => {
    if (image !== undefined && image !== shared) onTaken(image)
  })
}
