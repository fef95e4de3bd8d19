import { SandboxError } from '@cordon/core/backend'
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type EmscriptenModuleLoaderOptions,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core'
import { describeError } from './engine-failure.js'
import { WASM_PAGE_BYTES, type MemoryGuard } from './memory-guard.js'
import { load, type Loadable, type ResolvedQuickJSOptions, type VariantInput } from './options.js'
import { DEFAULT_VARIANT_PACKAGE, compileWasm, defaultWasmUrl } from './wasm-source.js'

/** A loaded QuickJS build: compiled once, instantiated afresh for every run. */
export interface Engine {
  /** Pages every instance's memory starts with (the module's declared minimum). */
  readonly initialPages: number
  /** Where the malloc heap starts in a fresh instance; below are static data and the C stack. */
  readonly heapStartBytes: number
  /** Pages of linear memory for a run whose guest may use `memoryMb` of heap. */
  capPagesFor(memoryMb: number): number
  /** A fresh QuickJS module (its own WASM instance) living in `guard.memory`. */
  instantiate(guard: MemoryGuard): Promise<QuickJSWASMModule>
}

/** 2 GiB: the most Emscripten's heap can grow to in a 32-bit WASM build. */
const MAX_HEAP_PAGES = 32_768

const INSTALL_FIX =
  `Install the default build with \`npm install ${DEFAULT_VARIANT_PACKAGE}@0.32.0\` ` +
  '(a dependency of @cordon/backend-quickjs), or pass { variant, wasmModule } to createQuickJSBackend().'

/** The default build is loaded once per process and shared by every backend that uses it. */
let defaultEngine: Promise<Engine> | undefined

/**
 * Loads the engine on first use. A failed load is not cached: the next run tries again
 * (e.g. after the missing package was installed or a transient fetch failed).
 */
export function engineLoader(options: ResolvedQuickJSOptions): () => Promise<Engine> {
  const custom = options.variant !== undefined || options.wasmModule !== undefined
  let own: Promise<Engine> | undefined
  return () => {
    if (!custom) return (defaultEngine ??= retryable(loadEngine(options), () => (defaultEngine = undefined)))
    return (own ??= retryable(loadEngine(options), () => (own = undefined)))
  }
}

function retryable(load: Promise<Engine>, forget: () => void): Promise<Engine> {
  load.catch(forget)
  return load
}

async function loadEngine(options: ResolvedQuickJSOptions): Promise<Engine> {
  let variant: QuickJSSyncVariant
  try {
    variant = await loadVariant(options.variant)
  } catch (error) {
    throw new SandboxError('BACKEND_UNAVAILABLE', `the QuickJS build could not be loaded: ${describeError(error)}`, {
      cause: error,
      fix: INSTALL_FIX,
    })
  }
  let compiled: WebAssembly.Module | undefined
  try {
    const input =
      options.wasmModule !== undefined ? await load(options.wasmModule) : options.variant === undefined ? await defaultWasmUrl() : undefined
    compiled = input === undefined ? undefined : await compileWasm(input)
  } catch (error) {
    throw new SandboxError('BACKEND_UNAVAILABLE', `the QuickJS WebAssembly module could not be compiled: ${describeError(error)}`, {
      cause: error,
      fix: 'Pass the compiled module or its bytes as { wasmModule } to createQuickJSBackend().',
    })
  }
  try {
    return await probe(variant, compiled)
  } catch (error) {
    if (SandboxError.isInstance(error)) throw error
    throw new SandboxError('BACKEND_UNAVAILABLE', `the QuickJS engine failed its start-up check: ${describeError(error)}`, {
      cause: error,
      fix: INSTALL_FIX,
    })
  }
}

async function loadVariant(input: Loadable<VariantInput> | string | undefined): Promise<QuickJSSyncVariant> {
  // A string names the variant's module, resolved from this package (how worker threads get theirs).
  // The default build (see wasm-source.ts for why this one) is named literally for bundlers.
  const loaded: unknown =
    input === undefined
      ? await import('@jitl/quickjs-wasmfile-release-sync')
      : typeof input === 'string'
        ? await import(/* @vite-ignore */ input)
        : await load(input)
  const variant = unwrapDefault(loaded)
  if (typeof variant !== 'object' || variant === null || typeof variant.importModuleLoader !== 'function') {
    throw new TypeError('the variant is not a quickjs-emscripten variant object')
  }
  if (variant.type !== 'sync') {
    throw new TypeError(
      `the variant is of type "${String(variant.type)}"; cordon needs a sync variant (asyncify allows one suspension at a time)`,
    )
  }
  return variant
}

/** One throwaway instance to learn the memory layout and to check that the build runs at all. */
async function probe(variant: QuickJSSyncVariant, compiled: WebAssembly.Module | undefined): Promise<Engine> {
  const module = await instantiateVariant(variant, compiled, undefined)
  const initialBytes = module.getWasmMemory().buffer.byteLength
  const heapStartBytes = measureHeapStart(module) ?? initialBytes
  const context = module.newContext()
  try {
    const result = context.evalCode('6 * 7', 'probe.js', { type: 'global' })
    const value = context.unwrapResult(result).consume((handle) => context.getNumber(handle))
    if (value !== 42) throw new Error(`6 * 7 evaluated to ${value}`)
  } finally {
    context.dispose()
  }
  const initialPages = initialBytes / WASM_PAGE_BYTES
  return {
    initialPages,
    heapStartBytes,
    capPagesFor: (memoryMb) =>
      Math.min(MAX_HEAP_PAGES, Math.max(initialPages, Math.ceil((heapStartBytes + memoryMb * 1024 * 1024) / WASM_PAGE_BYTES))),
    async instantiate(guard) {
      const instance = await instantiateVariant(variant, compiled, guard.memory)
      if (instance.getWasmMemory() !== guard.memory) {
        throw new SandboxError(
          'BACKEND_UNAVAILABLE',
          'this QuickJS build ignores the WebAssembly.Memory it is given, so memoryMb cannot be enforced',
          {
            fix: `Use a variant built with an imported memory, such as ${DEFAULT_VARIANT_PACKAGE}.`,
          },
        )
      }
      return instance
    },
  }
}

/**
 * Instantiates the variant. With a compiled module we instantiate it ourselves: Emscripten ignores
 * a failure inside `instantiateWasm` (its promise would never settle), so we race it.
 */
async function instantiateVariant(
  variant: QuickJSSyncVariant,
  compiled: WebAssembly.Module | undefined,
  memory: WebAssembly.Memory | undefined,
): Promise<QuickJSWASMModule> {
  // QuickJS prints nothing a guest can cause on purpose; keep Emscripten's messages (e.g. an
  // assertion while freeing a runtime, which also reaches us as an exception) off the host's console.
  // (quickjs-emscripten's loader type omits them, but Emscripten reads both.)
  const quiet = { print: ignore, printErr: ignore } as EmscriptenModuleLoaderOptions
  if (compiled === undefined) return newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory: memory, emscriptenModule: quiet }))
  let fail!: (error: unknown) => void
  const failed = new Promise<never>((_, reject) => {
    fail = reject
  })
  const custom = newVariant(variant, {
    wasmMemory: memory,
    emscriptenModule: {
      ...quiet,
      instantiateWasm(imports, onSuccess) {
        WebAssembly.instantiate(compiled, imports).then((instance) => onSuccess(instance), fail)
        return {}
      },
    },
  })
  return Promise.race([newQuickJSWASMModuleFromVariant(custom), failed])
}

/** The first address malloc hands out in a fresh instance. Not public API, so only a measurement. */
function measureHeapStart(module: QuickJSWASMModule): number | undefined {
  const emscripten = (module as unknown as { module?: { _malloc?: (n: number) => number; _free?: (p: number) => void } }).module
  if (typeof emscripten?._malloc !== 'function' || typeof emscripten._free !== 'function') return undefined
  const pointer = emscripten._malloc(16)
  emscripten._free(pointer)
  return pointer > 0 ? pointer : undefined
}

/** Unwraps `import()` results, including CommonJS interop's `{ default: { default: variant } }`. */
function unwrapDefault(value: unknown): QuickJSSyncVariant {
  let current = value
  for (let i = 0; i < 2; i++) {
    const inner = typeof current === 'object' && current !== null ? (current as { default?: unknown }).default : undefined
    if (typeof inner !== 'object' || inner === null) break
    current = inner
  }
  return current as QuickJSSyncVariant
}

function ignore(): void {}
