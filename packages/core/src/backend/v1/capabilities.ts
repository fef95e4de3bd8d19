/**
 * What a backend declares about itself. Static, serializable (plain JSON), and read
 * by the conformance suite and by @cordon/select. Every `true` is tested; every
 * `false` is tested too, as an `UNSUPPORTED` result where the feature is asked for.
 */
export interface BackendCapabilities {
  /**
   * What stands between guest code and the host process: a child process, a V8 isolate, a
   * WebAssembly engine, or an engine instance inside a child process (both boundaries).
   */
  isolation: 'process' | 'v8-isolate' | 'wasm' | 'process+v8-isolate' | 'process+wasm'
  /** `memoryMb` is enforced by the engine (not just observed). */
  memoryLimit: boolean
  /** Tools declared `sync: true` can be called without `await`. */
  syncHostCalls: boolean
  /** A guest that exhausts the engine's heap can never take the host process down. */
  survivesGuestOom: boolean
  /** `stats.cpuMs` is reported. */
  cpuTime: boolean
  /** `stats.heapBytes` is reported. */
  heapStats: boolean
  /** The guest has no network even if it escapes its context (e.g. a network namespace). */
  networkIsolation: boolean
  /** `openSession` is implemented: one guest context can run many programs and keep its state. */
  sessions: boolean
  /**
   * Guest code never runs on the host's thread: the host's event loop keeps turning while a guest
   * spins, and an abort, the deadline or dispose stops even a guest that never yields, at once.
   */
  preemptive: boolean
  /**
   * `RunOptions.inspector` (a Chrome DevTools Protocol debugger) and `RunOptions.cpuProfile` work:
   * `execute` takes `ExecuteRequest.inspector`. Optional in the v1 manifest: absent is false.
   */
  inspector?: boolean
}

/** Capability keys that are yes/no, for `require` filters and test selection. */
export type BooleanCapability = {
  [K in keyof BackendCapabilities]-?: BackendCapabilities[K] extends boolean ? K : never
}[keyof BackendCapabilities]

/** Every `isolation` value of the v1 manifest. */
export const ISOLATION_KINDS: readonly BackendCapabilities['isolation'][] = Object.freeze([
  'process',
  'v8-isolate',
  'wasm',
  'process+v8-isolate',
  'process+wasm',
])

/** Every yes/no key of the v1 manifest. */
export const BOOLEAN_CAPABILITIES: readonly BooleanCapability[] = Object.freeze([
  'memoryLimit',
  'syncHostCalls',
  'survivesGuestOom',
  'cpuTime',
  'heapStats',
  'networkIsolation',
  'sessions',
  'preemptive',
])
