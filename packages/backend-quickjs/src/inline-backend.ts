import { SandboxError, type BackendSession, type ExecuteOutcome, type ExecuteRequest, type SessionRequest } from '@cordon/core/backend'
import { INLINE_CAPABILITIES } from './capabilities.js'
import { NOT_LOADED, type QuickJSBackend } from './diagnostics.js'
import { describeError } from './engine-failure.js'
import { notStarted, unavailableMessage } from './not-run.js'
import { emscriptenMaker, type ImageSharing } from './emscripten-maker.js'
import { EnginePool } from './pool.js'
import type { WasiFromHost } from './worker/worker-data.js'
import { wasiMaker } from './wasi/wasi-maker.js'
import type { ResolvedQuickJSOptions } from './options.js'
import { SessionEngine, makeReadyEngine, releaseReadyEngine, type ReadyEngine } from './session.js'
import type { FreshEngine } from './fresh-engine.js'

/** What the worker mode adds to the inline backend it runs in each worker. */
export interface InlineExtras extends ImageSharing {
  /** Send console entries in batches the run engine pulls (see run-engine.ts). */
  pullLogs?: boolean
  /** quickjs-wasi: the module and engine image the host loaded (in a worker), or their coming. */
  wasiFromHost?: WasiFromHost | Promise<WasiFromHost>
}

/**
 * QuickJS on this thread: each guest in a WASM instance of its own whose memory is capped at
 * `memoryMb`, one instance per run or per session. Nothing is loaded until the first run. The
 * worker mode runs this same backend inside each worker, with its InlineExtras.
 */
export function createInlineBackend(
  settings: ResolvedQuickJSOptions,
  { pullLogs = false, wasiFromHost, ...images }: InlineExtras = {},
): QuickJSBackend {
  const maker = settings.engine === 'quickjs-wasi' ? wasiMaker(settings, wasiFromHost) : emscriptenMaker(settings, images)
  const pool = new EnginePool(
    settings.poolSize,
    async (cap) => makeReadyEngine(await maker.create(cap), settings.onDisposeError, pullLogs),
    releaseReadyEngine,
  )
  const sessions = new Set<SessionEngine>()
  let disposed = false

  /** A one-off run's engine made fresh again and ready, or undefined when it cannot be. */
  function renew(used: FreshEngine, cap: number): Promise<ReadyEngine> | undefined {
    const fresh = maker.recycle(used, cap)
    // What makeReadyEngine throws, the pool turns into a rejection (and a new engine).
    return fresh === undefined ? undefined : Promise.resolve(makeReadyEngine(fresh, settings.onDisposeError, pullLogs))
  }

  /** An engine with its guest runtime made, for `memoryMb`. Throws a SandboxError saying why not. */
  async function open(memoryMb: number, keepEngine: boolean): Promise<SessionEngine> {
    try {
      await maker.load()
    } catch (error) {
      throw SandboxError.isInstance(error) && error.code === 'BACKEND_UNAVAILABLE'
        ? error
        : new SandboxError('BACKEND_UNAVAILABLE', unavailableMessage(error, 'QuickJS could not be loaded'), { cause: error })
    }
    let ready: ReadyEngine
    try {
      ready = await pool.take(maker.capFor(memoryMb))
    } catch (error) {
      // BACKEND_UNAVAILABLE, MEMORY_LIMIT, or the guest runtime failing to start (BACKEND_CRASHED).
      if (SandboxError.isInstance(error)) throw error
      throw new SandboxError('BACKEND_CRASHED', `QuickJS backend: could not start an engine: ${describeError(error)}`, { cause: error })
    }
    if (!keepEngine) {
      const cap = maker.capFor(memoryMb)
      return SessionEngine.open(ready, {
        keepEngine,
        onDisposeError: settings.onDisposeError,
        onRecycle: (used) => pool.recycled(cap, () => renew(used, cap)),
      })
    }
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
    prepare() {
      if (!disposed) maker.load().catch(() => undefined)
    },
    diagnose: () => Promise.resolve({ engine: settings.engine, engineImage: maker.imageSource() ?? NOT_LOADED }),
    execute,
    openSession: (request: SessionRequest): Promise<BackendSession> => open(request.memoryMb, true),
    async dispose() {
      disposed = true
      pool.close()
      await Promise.all([...sessions].map((session) => session.dispose()))
    },
  }
}
