import { SandboxError, describeOptionValue } from '@cordon/core/backend'
import type { QuickJSSyncVariant } from 'quickjs-emscripten-core'
import { runsOnNode } from './host-platform.js'

/** A value, a promise of it, or a function returning either: how unstorage-style drivers take injections. */
export type Loadable<T> = T | Promise<T> | (() => T | Promise<T>)

/**
 * What `import('@jitl/quickjs-…-sync')` gives: the variant, or a module whose default export it is
 * (twice nested when TypeScript or a bundler sees the CommonJS build).
 */
export type VariantInput = QuickJSSyncVariant | { default: QuickJSSyncVariant } | { default: { default: QuickJSSyncVariant } }

/** The value a Loadable gives. */
export async function load<T>(input: Loadable<T>): Promise<T> {
  return typeof input === 'function' ? await (input as () => T | Promise<T>)() : await input
}

/** A compiled WebAssembly module, its bytes, or where to read them from. */
export type WasmModuleInput = WebAssembly.Module | ArrayBuffer | ArrayBufferView | URL | string

/** Where guest code runs: in worker threads (default), or on the host's own thread. */
export type QuickJSThread = 'worker' | 'inline'

/**
 * Which QuickJS runs the guest: `'quickjs-wasi'` (the default; quickjs-ng 0.18.0 compiled to WASI,
 * quickjs-wasi 3.7.0) or `'quickjs-emscripten'` (bellard's QuickJS 2025-09-13, or another of
 * quickjs-emscripten 0.32.0's builds through `variant`). The README's "Which QuickJS engine" compares them.
 */
export type QuickJSEngineName = 'quickjs-emscripten' | 'quickjs-wasi'

const ENGINE_NAMES: readonly QuickJSEngineName[] = ['quickjs-emscripten', 'quickjs-wasi']

export interface QuickJSBackendOptions {
  /**
   * `'worker'` (default): engines run in a pool of worker threads, so guest code never holds the
   * host's event loop, and an abort, a deadline or dispose stops even a guest that never yields
   * (through a flag in shared memory; a worker stuck in one long native call is terminated and
   * replaced). `'inline'`: engines run on the host's thread: the fastest tool calls, for hosts
   * without worker threads, but a guest that spins holds the host until its deadline, and an
   * abort cannot interrupt it.
   */
  thread?: QuickJSThread
  /**
   * Most worker threads at once (worker mode). Runs go to an idle worker first, then to a new
   * one, and share a worker only when this many are busy. Default: twice the machine's cores,
   * from 2 to 16. One worker is kept when idle; extra idle ones end after a few seconds.
   */
  workers?: number
  /**
   * In browsers: where the Web Worker module (`web-worker.js` of this package's `dist`) is served.
   * Default: beside this module (`new URL('./web-worker.js', import.meta.url)`), which bundlers
   * that copy such URLs (Vite, webpack 5) serve as is; with others, copy the file and say where.
   */
  workerUrl?: URL | string
  /**
   * Which QuickJS engine runs the guest (see QuickJSEngineName). Default `'quickjs-wasi'`, or
   * `'quickjs-emscripten'` when `variant` is given.
   */
  engine?: QuickJSEngineName
  /**
   * The QuickJS build to run (with `engine: 'quickjs-emscripten'`): a quickjs-emscripten **sync** variant (asyncify variants allow one
   * suspension at a time and are refused). Default: `@jitl/quickjs-wasmfile-release-sync`,
   * imported on the first run. Example: `{ variant: () => import('@jitl/quickjs-wasmfile-debug-sync') }`.
   * In worker mode each worker imports the variant itself, so give its module specifier or URL
   * (e.g. `'@jitl/quickjs-wasmfile-debug-sync'`, resolved from this package): a variant object
   * or function cannot cross to a worker.
   */
  variant?: Loadable<VariantInput> | string
  /**
   * The engine's `.wasm` (the variant's, or quickjs-wasi's `quickjs.wasm`), compiled once per
   * backend: a `WebAssembly.Module`, its bytes, or a URL/path to read. Found automatically for the
   * default variant and for quickjs-wasi on Node, Bun and Deno; pass it
   * for a custom variant (otherwise Emscripten loads and compiles the file again for every run)
   * or where files cannot be read (browsers, bundlers, edge runtimes).
   */
  wasmModule?: Loadable<WasmModuleInput>
  /**
   * Fresh engines (WASM instance, runtime, context and guest runtime, never used) kept ready so a
   * run does not wait for them. Each holds about 2 MiB of linear memory on quickjs-wasi, 16 MiB of
   * address space on quickjs-emscripten. Default 1; 0 disables.
   */
  poolSize?: number
  /**
   * QuickJS's stack limit in bytes. Deep guest recursion then fails with a catchable error
   * (`RangeError: Maximum call stack size exceeded`; `InternalError: stack overflow` on QuickJS
   * 2025-09-13) well before the host's own stack runs out. Default 384 KiB on quickjs-wasi (at
   * most 512 KiB there), 256 KiB on quickjs-emscripten.
   */
  maxStackSizeBytes?: number
  /**
   * Start each fresh engine from a snapshot (quickjs-wasi) or memory image (quickjs-emscripten) of
   * one that evaluated the guest runtime, instead of evaluating it again (~1 ms instead of ~6 ms;
   * Math.random is seeded anew for each). The
   * image is taken in the background after the first engine and checked before use; where it
   * cannot be checked, engines evaluate as with `false`. Default true.
   */
  engineImage?: boolean
  /**
   * Called when QuickJS fails to free a finished run's engine. The run's result stands (its WASM
   * instance is dropped whole either way); this only signals an engine bug, e.g. QuickJS
   * 2025-09-13 keeps objects of promise chains longer than ~20,000 links. Default: ignored.
   */
  onDisposeError?: (error: unknown) => void
}

export interface ResolvedQuickJSOptions {
  thread: QuickJSThread
  /** Undefined: chosen from the machine's cores at the first run. */
  workers: number | undefined
  workerUrl: URL | undefined
  engine: QuickJSEngineName
  variant: Loadable<VariantInput> | string | undefined
  wasmModule: Loadable<WasmModuleInput> | undefined
  poolSize: number
  maxStackSizeBytes: number
  engineImage: boolean
  onDisposeError: ((error: unknown) => void) | undefined
}

export const DEFAULT_POOL_SIZE = 1
/**
 * QuickJS's stack limit by engine: room for the value model's 1,000 levels of nesting through the
 * guest codec, ~1,630 plain calls on quickjs-ng 0.18.0 (384 KiB) and ~1,490 on QuickJS 2025-09-13.
 */
export const DEFAULT_MAX_STACK_SIZE_BYTES: Readonly<Record<QuickJSEngineName, number>> = {
  'quickjs-wasi': 384 * 1024,
  'quickjs-emscripten': 256 * 1024,
}
/**
 * In browsers: a worker's native stack there is a fraction of a Node worker thread's (4 MiB), and
 * QuickJS's C recursion in WebAssembly uses it past what QuickJS counts. Measured in Chromium 156:
 * with 160 KiB a guest still catches its own overflow (~680 plain calls, ~330 async ones); with
 * 192 KiB async recursion overflowed the worker's stack first.
 */
export const BROWSER_MAX_STACK_SIZE_BYTES = 160 * 1024
/** quickjs-wasi 3.7.0 refuses a larger QuickJS stack limit (its MAX_STACK_SIZE). */
export const WASI_MAX_STACK_SIZE_BYTES = 512 * 1024

/** Checks the options at construction (no I/O); a mistake throws INVALID_OPTIONS. */
export function resolveOptions(options: QuickJSBackendOptions = {}): ResolvedQuickJSOptions {
  if (typeof options !== 'object' || options === null) {
    throw new SandboxError('INVALID_OPTIONS', 'createQuickJSBackend: options must be an object')
  }
  const thread = options.thread ?? 'worker'
  if (thread !== 'worker' && thread !== 'inline') {
    throw new SandboxError(
      'INVALID_OPTIONS',
      `createQuickJSBackend: thread must be 'worker' or 'inline', got ${describeOptionValue(thread)}`,
    )
  }
  if (thread === 'worker' && options.variant !== undefined && typeof options.variant !== 'string') {
    throw new SandboxError(
      'INVALID_OPTIONS',
      'createQuickJSBackend: in worker mode (the default) variant must be a module specifier or URL string that each worker imports; a variant object or function cannot cross to a worker',
      { fix: "Pass the variant's package name, e.g. { variant: '@jitl/quickjs-wasmfile-debug-sync' }, or { thread: 'inline' }." },
    )
  }
  // A variant names one of quickjs-emscripten's builds, so it picks that engine.
  const engine = options.engine ?? (options.variant !== undefined ? 'quickjs-emscripten' : 'quickjs-wasi')
  if (!ENGINE_NAMES.includes(engine)) {
    throw new SandboxError(
      'INVALID_OPTIONS',
      `createQuickJSBackend: engine must be ${ENGINE_NAMES.map((name) => `'${name}'`).join(' or ')}, got ${describeOptionValue(engine)}`,
    )
  }
  if (engine === 'quickjs-wasi' && options.variant !== undefined) {
    throw new SandboxError(
      'INVALID_OPTIONS',
      "createQuickJSBackend: variant names a quickjs-emscripten build; engine 'quickjs-wasi' takes none",
      {
        fix: "Drop variant, or use engine: 'quickjs-emscripten'.",
      },
    )
  }
  const maxStackSizeBytes = integer(
    'maxStackSizeBytes',
    options.maxStackSizeBytes,
    runsOnNode() ? DEFAULT_MAX_STACK_SIZE_BYTES[engine] : Math.min(BROWSER_MAX_STACK_SIZE_BYTES, DEFAULT_MAX_STACK_SIZE_BYTES[engine]),
    16 * 1024,
    8 * 1024 * 1024,
  )
  if (engine === 'quickjs-wasi' && maxStackSizeBytes > WASI_MAX_STACK_SIZE_BYTES) {
    throw new SandboxError(
      'INVALID_OPTIONS',
      `createQuickJSBackend: with engine 'quickjs-wasi', maxStackSizeBytes must be at most ${WASI_MAX_STACK_SIZE_BYTES} (quickjs-wasi's limit), got ${maxStackSizeBytes}`,
    )
  }
  return {
    thread,
    engine,
    workers: options.workers === undefined ? undefined : integer('workers', options.workers, 1, 1, 256),
    workerUrl: workerUrl(options.workerUrl),
    variant: options.variant,
    wasmModule: options.wasmModule,
    poolSize: integer('poolSize', options.poolSize, DEFAULT_POOL_SIZE, 0, 16),
    maxStackSizeBytes,
    engineImage: flag('engineImage', options.engineImage, true),
    onDisposeError: callback('onDisposeError', options.onDisposeError),
  }
}

function workerUrl(value: unknown): URL | undefined {
  if (value === undefined) return undefined
  if (value instanceof URL) return value
  const base = (globalThis as { location?: { href?: string } }).location?.href
  try {
    if (typeof value === 'string') return new URL(value, base)
  } catch {
    // Said below.
  }
  throw new SandboxError('INVALID_OPTIONS', `createQuickJSBackend: workerUrl must be a URL, got ${describeOptionValue(value)}`)
}

function integer(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new SandboxError(
      'INVALID_OPTIONS',
      `createQuickJSBackend: ${name} must be an integer from ${min} to ${max}, got ${describeOptionValue(value)}`,
    )
  }
  return value
}

function flag(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback
  if (typeof value !== 'boolean')
    throw new SandboxError('INVALID_OPTIONS', `createQuickJSBackend: ${name} must be a boolean, got ${typeof value}`)
  return value
}

function callback(name: string, value: unknown): ((error: unknown) => void) | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'function') throw new SandboxError('INVALID_OPTIONS', `createQuickJSBackend: ${name} must be a function`)
  return value as (error: unknown) => void
}
