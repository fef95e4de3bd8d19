import { SandboxError } from '@cordon/core'
import { describeError } from '../engine-failure.js'
import type { EngineMaker } from '../engine-maker.js'
import { evaluateGuestRuntime, takeRuntimeFactory, type FreshEngine } from '../fresh-engine.js'
import { load, type ResolvedQuickJSOptions } from '../options.js'
import { WASI_WASM_SPECIFIER, compileWasm, wasmUrlOf } from '../wasm-source.js'
import { WasiContext, WasiRuntime, internals, type WasiModule } from './wasi-context.js'
import { restoreWasiVm, takeWasiImage, type WasiImage } from './wasi-image.js'

const MIB = 1024 * 1024

/**
 * quickjs-wasi: each engine is a VM of its own (WASM instance, runtime, context). Its memory is
 * bounded by QuickJS's own allocation limit, which quickjs-wasi counts exactly and makes
 * uncatchable (a failed allocation ends the run as `InternalError: out of memory`), set to what
 * QuickJS and the guest runtime hold in a fresh engine plus the run's `memoryMb`.
 */
export function wasiMaker(settings: ResolvedQuickJSOptions): EngineMaker {
  let loading: Promise<Loaded> | undefined
  let loaded: Loaded | undefined
  return {
    async load() {
      loading ??= loadWasi(settings).catch((error: unknown) => {
        loading = undefined
        throw error
      })
      loaded = await loading
    },
    capFor: (memoryMb) => memoryMb,
    async create(memoryMb) {
      if (loaded === undefined) throw new Error('the QuickJS engine is used before it was loaded')
      return createWasiEngine(loaded, loaded.baseBytes + memoryMb * MIB, settings.maxStackSizeBytes, loaded.image.ready)
    },
  }
}

interface Loaded {
  readonly wasi: WasiModule
  readonly module: WebAssembly.Module
  /** What QuickJS and the guest runtime hold in a fresh engine, not counted as the guest's. */
  readonly baseBytes: number
  /** Linear memory below the malloc heap (static data, the C stack). */
  readonly staticBytes: number
  /**
   * Where fresh engines are restored from (`engineImage`): taken in the background after the
   * probe; `ready` once it is taken and passed its checks (engines evaluate the sources until then).
   */
  readonly image: { ready: WasiImage | undefined }
}

async function loadWasi(settings: ResolvedQuickJSOptions): Promise<Loaded> {
  let wasi: WasiModule
  try {
    wasi = await import('quickjs-wasi')
  } catch (error) {
    throw new SandboxError('BACKEND_UNAVAILABLE', `quickjs-wasi could not be loaded: ${describeError(error)}`, {
      cause: error,
      fix: 'Install quickjs-wasi@3.7.0 (a dependency of @cordon/backend-quickjs).',
    })
  }
  let module: WebAssembly.Module
  try {
    const given = settings.wasmModule
    module = await compileWasm(given === undefined ? await wasmUrlOf(WASI_WASM_SPECIFIER) : await load(given))
  } catch (error) {
    throw new SandboxError('BACKEND_UNAVAILABLE', `the QuickJS WebAssembly module could not be compiled: ${describeError(error)}`, {
      cause: error,
      fix: 'Install quickjs-wasi@3.7.0 (a dependency of @cordon/backend-quickjs), or pass its quickjs.wasm as { wasmModule }.',
    })
  }
  try {
    // A bare VM: the linear memory below its malloc heap (static data, the C stack).
    const bare = await wasi.QuickJS.create({ wasm: module })
    const staticBytes = internals(bare).exports.memory.buffer.byteLength - bare.getAllocatedSize()
    bare.dispose()
    // A throwaway engine: the build runs, and what a fresh one holds.
    const probe = await createWasiEngine({ wasi, module, staticBytes }, 0, settings.maxStackSizeBytes, undefined)
    const baseBytes = (probe.context as WasiContext).vm.getAllocatedSize()
    const result = probe.context.evalCode('6 * 7', 'probe.js', { type: 'global' })
    const value = result.error ? undefined : result.value.consume((handle) => probe.context.getNumber(handle))
    probe.runtime.dispose()
    if (value !== 42) throw new Error(`6 * 7 evaluated to ${String(value)}`)
    const image: Loaded['image'] = { ready: undefined }
    if (settings.engineImage) {
      // A failed check leaves no image: engines keep evaluating the sources, as they always can.
      void takeWasiImage({ wasi, module }, settings.maxStackSizeBytes).then(
        (taken) => (image.ready = taken),
        () => undefined,
      )
    }
    return { wasi, module, baseBytes, staticBytes, image }
  } catch (error) {
    throw new SandboxError('BACKEND_UNAVAILABLE', `the QuickJS engine failed its start-up check: ${describeError(error)}`, { cause: error })
  }
}

/** `limitBytes` 0: no limit (the probe). From the image if there is one, else evaluating the sources. */
async function createWasiEngine(
  build: Pick<Loaded, 'wasi' | 'module' | 'staticBytes'>,
  limitBytes: number,
  maxStackSizeBytes: number,
  image: WasiImage | undefined,
): Promise<FreshEngine> {
  const interrupts: { handler: (() => boolean) | undefined } = { handler: undefined }
  const limits = {
    maxStackSize: maxStackSizeBytes,
    memoryLimit: limitBytes > 0 ? limitBytes : undefined,
    interruptHandler: () => interrupts.handler?.() ?? false,
  }
  const vm =
    image === undefined ? await build.wasi.QuickJS.create({ wasm: build.module, ...limits }) : await restoreWasiVm(build, image, limits)
  const context = new WasiContext(build.wasi, vm)
  const runtime = new WasiRuntime(context, interrupts)
  if (image === undefined) evaluateGuestRuntime(context, runtime)
  return {
    // A failed allocation throws an error the guest cannot catch, so it always reaches the run.
    guard: { exceeded: false },
    runtime,
    context,
    runtimeFactory: takeRuntimeFactory(context, runtime),
    // As on quickjs-emscripten: the linear memory's high-water mark above the static area.
    heapBytes: () => Math.max(0, internals(vm).exports.memory.buffer.byteLength - build.staticBytes),
  }
}
