import type { FarSideEvents } from '@cordon/core/backend'
import type { MessagePort } from 'node:worker_threads'
import type { EngineImage } from '../engine-image.js'
import type { QuickJSEngineName } from '../options.js'
import type { ShippedImage } from '../wasi/image-file.js'

/** What a QuickJS worker is started with: its engine settings (all structured-clonable) and the shared lines. */
export interface WorkerData {
  settings: {
    engine: QuickJSEngineName
    /** A module specifier or URL the worker imports; undefined for the default build. */
    variant: string | undefined
    /** Compiled once by the host for all workers (quickjs-wasi's comes in `wasiBuild`). */
    wasmModule: WebAssembly.Module | undefined
    poolSize: number
    maxStackSizeBytes: number
    engineImage: boolean
    /** Whether the host wants failed engine frees reported (as `warn`). */
    reportDisposeErrors: boolean
    /** The engine image an earlier worker of the pool took, once one has (see adoptEngineImage). */
    image?: EngineImage
    /** quickjs-wasi: its module and image when the host had loaded them as the worker started; else they come as a message. */
    wasiFromHost?: WasiFromHost
    /** quickjs-wasi: the host is loading them; they come as the first message. */
    wasiComing?: boolean
  }
  /** The stop flags (stop-flags.ts in @cordon/core/backend); undefined without shared memory. */
  flags: Int32Array | undefined
  /** Where the host's answers to synchronous tool calls arrive; the worker sends its engine image back on it (IMAGE_REPORT). */
  replyPort: MessagePort
}

/** Tags the one message a worker sends on its reply port: `[IMAGE_REPORT, EngineImage]`. */
export const IMAGE_REPORT = 'engine-image'

/**
 * quickjs-wasi's module and engine image, loaded once by the host (while the first worker starts)
 * and handed to every worker: as `[WASI_FROM_HOST, WasiFromHost]`, the first message a worker
 * started before they were loaded gets, or in `settings.wasiFromHost` for the workers after.
 */
export const WASI_FROM_HOST = 'wasi-from-host'

export type WasiFromHost =
  /** `image`: the shipped engine image, checked against the module's bytes; undefined if unusable (the worker takes its own), `imageNote` says why. */
  | { module: WebAssembly.Module; image: ShippedImage | undefined; imageNote: string }
  /** The host could not load it: the worker's runs end BACKEND_UNAVAILABLE with this. */
  | { error: string }

export function isWasiFromHost(message: unknown): message is [typeof WASI_FROM_HOST, WasiFromHost] {
  return Array.isArray(message) && message.length === 2 && message[0] === WASI_FROM_HOST
}

/** What the pool starts one worker with, on either platform (worker-thread.ts, web-worker-thread.ts). */
export interface WorkerStart {
  /** The worker's module: dist/engine-worker.js, or dist-browser/web-worker.js in a page. */
  entry: URL
  settings: WorkerData['settings']
  events: FarSideEvents
  /** Called with the engine image the worker took, for the workers started after it. */
  onImage: (image: EngineImage) => void
  /**
   * quickjs-wasi's module and image, when the host was still loading them (`settings.wasiComing`):
   * called once the worker is created (it starts the loading if nothing did yet).
   */
  wasiComing: (() => Promise<WasiFromHost>) | undefined
}
