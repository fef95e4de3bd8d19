import type { MessagePort } from 'node:worker_threads'
import type { EngineImage } from '../engine-image.js'
import type { QuickJSEngineName } from '../options.js'

/** What a QuickJS worker is started with: its engine settings (all structured-clonable) and the shared lines. */
export interface WorkerData {
  settings: {
    engine: QuickJSEngineName
    /** A module specifier or URL the worker imports; undefined for the default build. */
    variant: string | undefined
    /** Compiled once by the host for all workers. */
    wasmModule: WebAssembly.Module | undefined
    poolSize: number
    maxStackSizeBytes: number
    engineImage: boolean
    /** Whether the host wants failed engine frees reported (as `warn`). */
    reportDisposeErrors: boolean
    /** The engine image an earlier worker of the pool took, once one has (see adoptEngineImage). */
    image?: EngineImage
  }
  /** The stop flags (stop-flags.ts in @cordon/core/backend); undefined without shared memory. */
  flags: Int32Array | undefined
  /** Where the host's answers to synchronous tool calls arrive; the worker sends its engine image back on it (IMAGE_REPORT). */
  replyPort: MessagePort
}

/** Tags the one message a worker sends on its reply port: `[IMAGE_REPORT, EngineImage]`. */
export const IMAGE_REPORT = 'engine-image'
