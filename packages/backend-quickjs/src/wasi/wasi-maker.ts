import { SandboxError } from '@cordon/core/backend'
import { describeError } from '../engine-failure.js'
import { NO_IMAGE, type EngineMaker } from '../engine-maker.js'
import { evaluateGuestRuntime, takeRuntimeFactory, type FreshEngine } from '../fresh-engine.js'
import { load, type ResolvedQuickJSOptions } from '../options.js'
import { compileWasmKeepingBytes, defaultWasiWasmUrl } from '../wasm-source.js'
import type { WasiFromHost } from '../worker/worker-data.js'
import type { ShippedImage } from './image-file.js'
import { readShippedImage } from './shipped-image.js'
import { WasiContext, WasiRuntime, internals, type WasiModule } from './wasi-context.js'
import { clockWithRandomShift, restoreWasiVm, seedMathRandom, takeWasiImage, type WasiBuild, type WasiImage } from './wasi-image.js'
import { recycleCheck, recycleWasiVm, type RecycleCheck } from './wasi-recycle.js'
import type { QuickJS } from 'quickjs-wasi'

const MIB = 1024 * 1024
/** What QuickJSDiagnostics.engineImage says when engines are restored from the shipped image. */
export const SHIPPED = 'the engine image shipped with the package (dist/quickjs-wasi.image)'

/**
 * quickjs-wasi: each engine is a VM of its own (WASM instance, runtime, context). Its memory is
 * bounded by QuickJS's own allocation limit, which quickjs-wasi counts exactly and makes
 * uncatchable (a failed allocation ends the run as `InternalError: out of memory`), set to what
 * QuickJS and the guest runtime hold in a fresh engine plus the run's `memoryMb`.
 */
export function wasiMaker(settings: ResolvedQuickJSOptions, given?: WasiFromHost | Promise<WasiFromHost>): EngineMaker {
  let loading: Promise<Loaded> | undefined
  let loaded: Loaded | undefined
  return {
    async load() {
      loading ??= loadWasi(settings, given).catch((error: unknown) => {
        loading = undefined
        throw error
      })
      loaded = await loading
    },
    capFor: (memoryMb) => memoryMb,
    async create(memoryMb) {
      if (loaded === undefined) throw new Error('the QuickJS engine is used before it was loaded')
      const limitBytes = loaded.baseBytes + memoryMb * MIB
      const checked = loaded.checked
      if (checked !== undefined) {
        // The probe is the first engine: made like the others, it only lacked its cap.
        loaded.checked = undefined
        internals((checked.context as WasiContext).vm).exports.qjs_set_memory_limit(limitBytes)
        return checked
      }
      return createWasiEngine(loaded, limitBytes, settings.maxStackSizeBytes, loaded.image.ready)
    },
    imageSource: () => loaded?.imageSource,
    recycle: (engine, memoryMb) => (loaded === undefined ? undefined : engine.recycle?.(loaded.baseBytes + memoryMb * MIB)),
  }
}

interface Loaded extends WasiBuild {
  /** What QuickJS and the guest runtime hold in a fresh engine, not counted as the guest's. */
  readonly baseBytes: number
  /** Linear memory below the malloc heap (static data, the C stack). */
  readonly staticBytes: number
  /**
   * Where fresh engines are restored from (`engineImage`): the image the build shipped, or else
   * one taken in the background after the probe; engines evaluate the sources until it is `ready`.
   */
  readonly image: { ready: WasiImage | undefined }
  /** The engine the start-up check ran `6 * 7` in, without a memory cap yet; the first engine made. */
  checked: FreshEngine | undefined
  /** Where engines come from, in words (QuickJSDiagnostics.engineImage). */
  readonly imageSource: string
}

/** quickjs-wasi, its WASM compiled (the bytes kept, to check a shipped image against), or BACKEND_UNAVAILABLE. */
export async function loadWasiBuild(settings: ResolvedQuickJSOptions): Promise<WasiBuild & { bytes?: Uint8Array }> {
  const wasi = await importWasi()
  try {
    const given = settings.wasmModule
    return { wasi, ...(await compileWasmKeepingBytes(given === undefined ? await defaultWasiWasmUrl() : await load(given))) }
  } catch (error) {
    throw new SandboxError('BACKEND_UNAVAILABLE', `the QuickJS WebAssembly module could not be compiled: ${describeError(error)}`, {
      cause: error,
      fix: 'Install quickjs-wasi@3.7.0 (a dependency of @cordon/backend-quickjs), or pass its quickjs.wasm as { wasmModule }.',
    })
  }
}

async function importWasi(): Promise<WasiModule> {
  try {
    return await import('quickjs-wasi')
  } catch (error) {
    throw new SandboxError('BACKEND_UNAVAILABLE', `quickjs-wasi could not be loaded: ${describeError(error)}`, {
      cause: error,
      fix: 'Install quickjs-wasi@3.7.0 (a dependency of @cordon/backend-quickjs).',
    })
  }
}

/**
 * The shipped image for this build when `engineImage` is on and it matches the WASM bytes and the
 * guest runtime; else a string saying why not.
 */
export async function shippedImageFor(
  settings: ResolvedQuickJSOptions,
  build: WasiBuild & { bytes?: Uint8Array },
): Promise<ShippedImage | string> {
  if (!settings.engineImage) return 'engineImage is off'
  if (build.bytes === undefined) return 'the WebAssembly module was given compiled, so its bytes cannot be checked'
  return readShippedImage(build.wasi, build.bytes)
}

/** quickjs-wasi's module and the shipped image checked against it, as the worker mode's host hands them on. */
export async function loadWasiBuildAndImage(settings: ResolvedQuickJSOptions): Promise<WasiFromHost> {
  try {
    const build = await loadWasiBuild(settings)
    const shipped = await shippedImageFor(settings, build)
    return typeof shipped === 'string'
      ? { module: build.module, image: undefined, imageNote: shipped }
      : { module: build.module, image: shipped, imageNote: SHIPPED }
  } catch (error) {
    return { error: describeError(error) }
  }
}

async function loadWasi(settings: ResolvedQuickJSOptions, given: WasiFromHost | Promise<WasiFromHost> | undefined): Promise<Loaded> {
  const delivered = await given
  if (delivered !== undefined && 'error' in delivered) throw new SandboxError('BACKEND_UNAVAILABLE', delivered.error)
  const build = delivered === undefined ? await loadWasiBuild(settings) : { wasi: await importWasi(), module: delivered.module }
  const shipped = delivered === undefined ? await shippedImageFor(settings, build) : (delivered.image ?? delivered.imageNote)
  let why = typeof shipped === 'string' ? shipped : ''
  try {
    if (typeof shipped !== 'string') {
      // Restored from the shipped image: the probe checks the image too (it holds the runtime's
      // factory, made by this quickjs-wasi), and the sizes are those measured when it was made.
      const probe = await createWasiEngine({ ...build, staticBytes: shipped.staticBytes }, 0, settings.maxStackSizeBytes, shipped.image)
      checkProbe(probe)
      if ((probe.context as WasiContext).vm.versions['quickjs-wasi'] === shipped.quickjsWasi) {
        const { staticBytes, baseBytes } = shipped
        return { ...build, staticBytes, baseBytes, image: { ready: shipped.image }, checked: probe, imageSource: SHIPPED }
      }
      probe.runtime.dispose()
      why = 'made by another quickjs-wasi'
    }
    const { engine: checked, ...sizes } = await measureWasi(build, settings.maxStackSizeBytes)
    const image: Loaded['image'] = { ready: undefined }
    if (settings.engineImage) {
      // A failed check leaves no image: engines keep evaluating the sources, as they always can.
      void takeWasiImage(build, settings.maxStackSizeBytes).then(
        (taken) => (image.ready = taken),
        () => undefined,
      )
    }
    const imageSource = settings.engineImage ? `an engine image taken in this process (the shipped one: ${why})` : NO_IMAGE
    return { ...build, ...sizes, image, checked, imageSource }
  } catch (error) {
    throw new SandboxError('BACKEND_UNAVAILABLE', `the QuickJS engine failed its start-up check: ${describeError(error)}`, { cause: error })
  }
}

/**
 * The static area and what a fresh engine holds, measured on a bare VM and on an engine that
 * evaluated the sources (checked to run; the caller's to use or dispose).
 */
export async function measureWasi(
  build: WasiBuild,
  maxStackSizeBytes: number,
): Promise<{ staticBytes: number; baseBytes: number; engine: FreshEngine }> {
  const bare = await build.wasi.QuickJS.create({ wasm: build.module })
  const staticBytes = internals(bare).exports.memory.buffer.byteLength - bare.getAllocatedSize()
  bare.dispose()
  const engine = await createWasiEngine({ ...build, staticBytes }, 0, maxStackSizeBytes, undefined)
  const baseBytes = (engine.context as WasiContext).vm.getAllocatedSize()
  checkProbe(engine)
  return { staticBytes, baseBytes, engine }
}

/** `6 * 7` in the engine is 42 (the engine is disposed if not). */
function checkProbe(probe: FreshEngine): void {
  const result = probe.context.evalCode('6 * 7', 'probe.js', { type: 'global' })
  const value = result.error ? undefined : result.value.consume((handle) => probe.context.getNumber(handle))
  if (value === 42) return
  probe.runtime.dispose()
  throw new Error(`6 * 7 evaluated to ${String(value)}`)
}

/** `limitBytes` 0: no limit (the probe). From the image if there is one, else evaluating the sources. */
async function createWasiEngine(
  build: WasiBuild & { staticBytes: number },
  limitBytes: number,
  maxStackSizeBytes: number,
  image: WasiImage | undefined,
): Promise<FreshEngine> {
  const { interrupts, limits } = engineLimits(maxStackSizeBytes, limitBytes)
  if (image === undefined) {
    const vm = await build.wasi.QuickJS.create({ wasm: build.module, ...limits, wasi: clockWithRandomShift })
    seedMathRandom(vm)
    return wasiEngine(build, vm, interrupts, undefined)
  }
  const vm = await restoreWasiVm(build, image, limits)
  return wasiEngine(build, vm, interrupts, { image, check: recycleCheck(vm), maxStackSizeBytes })
}

/** Where a VM's interrupt handler goes (set by its WasiRuntime), and its limits; `limitBytes` 0: none. */
function engineLimits(maxStackSizeBytes: number, limitBytes: number) {
  const interrupts: { handler: (() => boolean) | undefined } = { handler: undefined }
  const limits = {
    maxStackSize: maxStackSizeBytes,
    memoryLimit: limitBytes > 0 ? limitBytes : undefined,
    interruptHandler: () => interrupts.handler?.() ?? false,
  }
  return { interrupts, limits }
}

/** What recycling a VM restored from an image needs (see wasi-recycle.ts). */
interface Recycling {
  readonly image: WasiImage
  readonly check: RecycleCheck
  readonly maxStackSizeBytes: number
}

/** The engine around `vm`; without `recycling` (made from the sources) the guest runtime is evaluated first. */
function wasiEngine(
  build: WasiBuild & { staticBytes: number },
  vm: QuickJS,
  interrupts: { handler: (() => boolean) | undefined },
  recycling: Recycling | undefined,
): FreshEngine {
  const context = new WasiContext(build.wasi, vm)
  const runtime = new WasiRuntime(context, interrupts)
  if (recycling === undefined) evaluateGuestRuntime(context, runtime)
  const engine: FreshEngine = {
    // A failed allocation throws an error the guest cannot catch, so it always reaches the run.
    guard: { exceeded: false },
    runtime,
    context,
    runtimeFactory: takeRuntimeFactory(context, runtime),
    // As on quickjs-emscripten: the linear memory's high-water mark above the static area.
    heapBytes: () => Math.max(0, internals(vm).exports.memory.buffer.byteLength - build.staticBytes),
  }
  if (recycling === undefined) return engine
  let recycled = false
  engine.recycle = (limitBytes) => {
    // Once: the engine that comes of it is the instance's owner from then on.
    if (recycled) return undefined
    recycled = true
    const { interrupts: next, limits } = engineLimits(recycling.maxStackSizeBytes, limitBytes)
    return recycleWasiVm(build, vm, recycling.image, recycling.check, limits) ? wasiEngine(build, vm, next, recycling) : undefined
  }
  return engine
}
