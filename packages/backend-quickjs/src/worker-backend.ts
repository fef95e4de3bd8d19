import { ChannelPool, SandboxError, type BackendSession, type ExecuteOutcome, type ExecuteRequest } from '@cordon/core/backend'
import { QUICKJS_CAPABILITIES, WEB_WORKER_CAPABILITIES } from './capabilities.js'
import { describeError } from './engine-failure.js'
import { notStarted, unavailableMessage } from './not-run.js'
import { load, type ResolvedQuickJSOptions } from './options.js'
import { NOT_LOADED, type QuickJSBackend } from './diagnostics.js'
import { NO_IMAGE } from './engine-maker.js'
import { SHIPPED, loadWasiBuildAndImage } from './wasi/wasi-maker.js'
import { compileWasm, defaultWasmUrl } from './wasm-source.js'
import { nodeBuiltin } from './node-builtin.js'
import type { WasiFromHost, WorkerData } from './worker/worker-data.js'
import { startWorker } from './worker-thread.js'
import { pageWorkerConstructor, startWebWorker } from './web-worker-thread.js'
import type { EngineImage } from './engine-image.js'

/**
 * How long a stopped run may take to report before it ends anyway with its stop reason (a run
 * ends by its deadline + this); a worker that has not reported it a second later is stuck in one
 * long native call and is terminated.
 */
export const WORKER_STOP_GRACE_MS = 60
const WORKER_KILL_GRACE_MS = 1_000
/** An idle worker beyond the first is ended after this long. */
const WORKER_IDLE_MS = 5_000
/** Longest string a worker may send in one report field (a value, a log line, tool arguments). */
const MAX_REPORT_CHARS = 2 ** 30

/**
 * QuickJS in a pool of worker threads: the inline backend runs inside each worker, and runs,
 * sessions, tool calls and logs cross as messages (the channel protocol of @cordon/core/backend).
 * The host's event loop never runs guest code; stops reach a busy worker through shared memory.
 */
export function createWorkerBackend(settings: ResolvedQuickJSOptions): QuickJSBackend {
  let pool: Promise<ChannelPool> | undefined
  let disposed = false

  /** quickjs-wasi's module and image, once the pool has started loading them (for diagnose). */
  let wasiLoaded: Promise<WasiFromHost> | undefined

  function ready(): Promise<ChannelPool> {
    pool ??= startPool(settings, (loading) => void (wasiLoaded = loading)).catch((error: unknown) => {
      // Not cached: the next run tries again (e.g. after the missing package was installed).
      pool = undefined
      throw error
    })
    return pool
  }

  return {
    specificationVersion: 'v1',
    name: 'quickjs',
    // Known before anything loads: where there is no Node the pool runs Web Workers, which answer
    // synchronous tools only through shared memory (a cross-origin isolated page).
    capabilities:
      pageWorkerConstructor() !== undefined && typeof SharedArrayBuffer !== 'function' ? WEB_WORKER_CAPABILITIES : QUICKJS_CAPABILITIES,
    async diagnose() {
      if (settings.engine !== 'quickjs-wasi') {
        const engineImage = !settings.engineImage
          ? NO_IMAGE
          : pool === undefined
            ? NOT_LOADED
            : 'an engine image the first worker takes, handed to the others'
        return { engine: settings.engine, engineImage }
      }
      const loaded = await wasiLoaded
      return {
        engine: settings.engine,
        engineImage: loaded === undefined ? NOT_LOADED : 'error' in loaded ? loaded.error : imageOfWorkers(loaded.imageNote),
      }
    },
    prepare() {
      // Once per pool: the module, the image and the first worker get ready while core checks the program.
      if (disposed || pool !== undefined) return
      void ready().then(
        (workers) => workers.warm(),
        () => undefined,
      )
    },
    async execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
      if (request.signal.aborted) return notStarted(request)
      let workers: ChannelPool
      try {
        workers = await ready()
      } catch (error) {
        return {
          ok: false,
          error: { code: 'BACKEND_UNAVAILABLE', message: unavailableMessage(error, 'QuickJS workers could not be started') },
        }
      }
      if (disposed) return { ok: false, error: { code: 'ABORTED', message: 'the backend was disposed' } }
      return workers.execute(request)
    },
    async openSession(request): Promise<BackendSession> {
      let workers: ChannelPool
      try {
        workers = await ready()
      } catch (error) {
        throw new SandboxError('BACKEND_UNAVAILABLE', unavailableMessage(error, 'QuickJS workers could not be started'), { cause: error })
      }
      return workers.openSession(request.memoryMb)
    },
    async dispose() {
      disposed = true
      // The pool is kept, disposed: a later call finds it closed instead of starting a new one.
      const started = pool
      if (started === undefined) return
      try {
        ;(await started).dispose({ code: 'ABORTED', message: 'the backend was disposed' })
      } catch {
        // It never started: nothing to end.
      }
    },
  }
}

/** What workers start from, as diagnose() says it: the shipped image, or one each worker takes. */
function imageOfWorkers(imageNote: string): string {
  return imageNote === SHIPPED ? SHIPPED : `an engine image each worker takes (the shipped one: ${imageNote})`
}

async function startPool(settings: ResolvedQuickJSOptions, onWasiLoading: (loading: Promise<WasiFromHost>) => void): Promise<ChannelPool> {
  const wasi = settings.engine === 'quickjs-wasi'
  const [platform, engine, workerCount] = await Promise.all([workerPlatform(settings), hostLoadedEngine(settings), cores()])
  const data: WorkerData['settings'] = {
    engine: settings.engine,
    variant: typeof settings.variant === 'string' ? settings.variant : undefined,
    ...engine,
    wasiComing: wasi,
    poolSize: settings.poolSize,
    maxStackSizeBytes: settings.maxStackSizeBytes,
    engineImage: settings.engineImage,
    reportDisposeErrors: settings.onDisposeError !== undefined,
  }
  // quickjs-wasi's module and image load while the first worker starts (they go to it as a
  // message), and to every later worker in its data. Loading begins once that worker is created:
  // importing quickjs-wasi holds the host's thread for a few milliseconds the worker's start
  // should not wait for.
  let wasiComing: Promise<WasiFromHost> | undefined
  const wasiLoad = () => {
    if (wasiComing !== undefined) return wasiComing
    wasiComing = loadWasiBuildAndImage(settings)
    onWasiLoading(wasiComing)
    void wasiComing.then((loaded) => {
      data.wasiFromHost = loaded
      data.wasiComing = false
    })
    return wasiComing
  }
  const { onDisposeError } = settings
  // The first engine image a worker takes is handed to every worker started after it.
  const onImage = (image: EngineImage) => void (data.image ??= image)
  return new ChannelPool({
    label: 'QuickJS worker',
    start: (events) => {
      const start = { entry: platform.entry, settings: data, events, onImage, wasiComing: wasi ? wasiLoad : undefined }
      return platform.kind === 'web' ? startWebWorker(platform.Worker, start) : startWorker(platform.threads, start)
    },
    maxSides: settings.workers ?? defaultWorkerCount(workerCount),
    minSides: 1,
    idleMs: WORKER_IDLE_MS,
    maxChars: MAX_REPORT_CHARS,
    stopGraceMs: WORKER_STOP_GRACE_MS,
    killGraceMs: WORKER_KILL_GRACE_MS,
    onWarn: onDisposeError === undefined ? undefined : (message) => onDisposeError(new Error(message)),
  })
}

type WorkerPlatform =
  | { kind: 'node'; threads: typeof import('node:worker_threads'); entry: URL }
  | { kind: 'web'; Worker: NonNullable<ReturnType<typeof pageWorkerConstructor>>; entry: URL }

/** Node's worker threads (Node, Bun, Deno), else a browser's Web Workers, else BACKEND_UNAVAILABLE. */
async function workerPlatform(settings: ResolvedQuickJSOptions): Promise<WorkerPlatform> {
  const Worker = pageWorkerConstructor()
  if (Worker !== undefined) {
    return { kind: 'web', Worker, entry: settings.workerUrl ?? new URL('./web-worker.js', import.meta.url) }
  }
  let threads: typeof import('node:worker_threads')
  try {
    threads = await nodeBuiltin<typeof import('node:worker_threads')>('node:worker_threads')
  } catch (error) {
    throw new SandboxError('BACKEND_UNAVAILABLE', 'this host has no worker threads (node:worker_threads): ' + describeError(error), {
      cause: error,
      fix: "Use createQuickJSBackend({ thread: 'inline' }); guest code then runs on the host's thread.",
    })
  }
  return { kind: 'node', threads, entry: await findWorkerEntry() }
}

/** Twice the cores (runs wait on tools as often as they compute), from 2 to 16. */
export function defaultWorkerCount(cores: number): number {
  return Math.min(16, Math.max(2, cores * 2))
}

async function cores(): Promise<number> {
  const navigatorCores = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency
  if (typeof navigatorCores === 'number' && navigatorCores > 0) return navigatorCores
  try {
    const os = await nodeBuiltin<typeof import('node:os')>('node:os')
    return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length
  } catch {
    return 2
  }
}

/**
 * What is loaded here once and handed to every worker: the module of quickjs-emscripten's default
 * build or the user's `wasmModule`, compiled. A custom variant without `wasmModule` is left to each
 * worker; quickjs-wasi's module comes with its engine image (`wasiComing`).
 */
async function hostLoadedEngine(settings: ResolvedQuickJSOptions): Promise<Pick<WorkerData['settings'], 'wasmModule'>> {
  return { wasmModule: settings.engine === 'quickjs-wasi' ? undefined : await hostCompiledModule(settings) }
}

/** The default build's module or the user's `wasmModule`, compiled. */
async function hostCompiledModule(settings: ResolvedQuickJSOptions): Promise<WebAssembly.Module | undefined> {
  try {
    if (settings.wasmModule !== undefined) return await compileWasm(await load(settings.wasmModule))
    return settings.variant === undefined ? await compileWasm(await defaultWasmUrl()) : undefined
  } catch (error) {
    throw new SandboxError('BACKEND_UNAVAILABLE', 'the QuickJS WebAssembly module could not be compiled: ' + describeError(error), {
      cause: error,
      fix: 'Pass the compiled module or its bytes as { wasmModule } to createQuickJSBackend().',
    })
  }
}

/** dist/engine-worker.js: next to this module when built, in ../dist when running from the sources. */
async function findWorkerEntry(): Promise<URL> {
  const beside = new URL('./engine-worker.js', import.meta.url)
  if (beside.protocol !== 'file:') return beside
  const candidates = [beside, new URL('../dist/engine-worker.js', import.meta.url)]
  const { existsSync } = await nodeBuiltin<typeof import('node:fs')>('node:fs')
  const { fileURLToPath } = await nodeBuiltin<typeof import('node:url')>('node:url')
  const found = candidates.find((candidate) => existsSync(fileURLToPath(candidate)))
  if (found !== undefined) return found
  throw new SandboxError('BACKEND_UNAVAILABLE', 'the QuickJS worker entry (engine-worker.js) is missing', {
    fix: 'Reinstall @cordon/backend-quickjs, or run its build.',
  })
}
