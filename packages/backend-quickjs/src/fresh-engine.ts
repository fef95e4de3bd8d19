import { GUEST_RUNTIME_SOURCE, SandboxError } from '@cordon/core/backend'
import type { QuickJSContext } from 'quickjs-emscripten-core'
import type { EngineContext, EngineHandle, EngineRuntime } from './engine-api.js'
import { applyEngineImage, captureEngineImage, copyWorks, type EngineImage, type Preparation } from './engine-image.js'
import { BUFFER_GUARD_FILENAME, BUFFER_GUARD_SOURCE } from './buffer-guard-source.js'
import type { Engine } from './engine-loader.js'
import { LENGTH_GUARD_FILENAME, LENGTH_GUARD_SOURCE } from './length-guard-source.js'
import { MemoryGuard } from './memory-guard.js'

/** The file name of the guest runtime in stacks; it must not end in the guest's own file name. */
export const RUNTIME_FILENAME = 'cordon-runtime'

/**
 * Everything a run needs that does not depend on the run: a WASM instance of its own, a
 * runtime and a context in it, and GUEST_RUNTIME_SOURCE evaluated to its factory function
 * (not yet called, so no host function is reachable and no global has changed). Prepared
 * ahead of time by the pool, used by exactly one run or one session, then thrown away. The
 * evaluation is done in the instance itself or copied in from an engine image.
 */
export interface FreshEngine {
  /** `exceeded`: an allocation failed at the memory cap, for good (the guest may have caught it). */
  readonly guard: { readonly exceeded: boolean }
  readonly runtime: EngineRuntime
  readonly context: EngineContext
  /** `(host) => GuestRuntime`. */
  readonly runtimeFactory: EngineHandle
  /** Bytes of guest heap in use (or its high-water mark, where the engine cannot say less). */
  heapBytes(): number
  /**
   * After a run: this engine's instance made fresh again in place, capped at `limitBytes`, as a new
   * engine (this one is done with); undefined when it cannot be. Only quickjs-wasi engines restored
   * from an image have it (see wasi/wasi-recycle.ts).
   */
  recycle?(limitBytes: number): FreshEngine | undefined
}

/**
 * `useImage`: start from the engine image when one is ready (see engine-image.ts); the first
 * call for an engine and stack size starts taking it in the background.
 */
export async function createFreshEngine(
  engine: Engine,
  capPages: number,
  maxStackSizeBytes: number,
  useImage: boolean,
): Promise<FreshEngine> {
  const steps = enginePreparation(maxStackSizeBytes)
  const image = useImage ? readyImage(engine, maxStackSizeBytes) : undefined
  const fits = image !== undefined && image.pages <= capPages
  const guard = new MemoryGuard(fits ? Math.max(engine.initialPages, image.pages) : engine.initialPages, capPages)
  try {
    return await prepare(engine, guard, steps, fits ? image : undefined)
  } catch (error) {
    if (!guard.exceeded) throw error
    throw new SandboxError('MEMORY_LIMIT', 'memoryMb is too small for QuickJS and the guest runtime themselves', { cause: error })
  }
}

async function prepare(engine: Engine, guard: MemoryGuard, steps: Preparation, image: EngineImage | undefined): Promise<FreshEngine> {
  const module = await engine.instantiate(guard)
  const { runtime, context } = steps.makeBare(module)
  if (image === undefined || !applyEngineImage(image, guard.memory, runtime, context)) steps.evaluate(context, runtime)
  return {
    guard,
    runtime,
    context: engineContext(context),
    runtimeFactory: takeRuntimeFactory(engineContext(context), runtime),
    // The linear memory's high-water mark above QuickJS's static area (static data, C stack).
    heapBytes: () => Math.max(0, guard.byteLength - engine.heapStartBytes),
  }
}

/**
 * quickjs-emscripten's context as the engine API: the same methods, but its newFunction is
 * overloaded (a name is optional), which TypeScript cannot match to the API's one signature.
 */
function engineContext(context: QuickJSContext): EngineContext {
  return context as unknown as EngineContext
}

/** The guest runtime's factory, taken from where its evaluation (or an engine image) left it. */
export function takeRuntimeFactory(context: EngineContext, runtime: EngineRuntime): EngineHandle {
  return evaluate(context, runtime, TAKE_FACTORY_SOURCE, 'cordon-take-runtime', 'taking the guest runtime')
}

/**
 * The guest runtime's factory waits on the global object under this name from its evaluation
 * (which an engine image may have done) until it is taken, before any guest code exists.
 */
const FACTORY_KEY = '__cordonRuntimeFactory'

/**
 * Evaluates the guards and the guest runtime in a fresh context; the guards first, so that the
 * runtime too captures the guarded built-ins (see buffer-guard.ts, length-guard.ts).
 */
export function evaluateGuestRuntime(context: EngineContext, runtime: EngineRuntime): void {
  for (const step of GUEST_RUNTIME_STEPS) evaluate(context, runtime, step.source, step.filename, step.what).dispose()
}

/** What evaluateGuestRuntime evaluates, in order: an engine image is valid for exactly these. */
export const GUEST_RUNTIME_STEPS: readonly { source: string; filename: string; what: string }[] = [
  { source: BUFFER_GUARD_SOURCE, filename: BUFFER_GUARD_FILENAME, what: 'the buffer guard' },
  { source: LENGTH_GUARD_SOURCE, filename: LENGTH_GUARD_FILENAME, what: 'the length guard' },
  { source: `globalThis.${FACTORY_KEY} = ${GUEST_RUNTIME_SOURCE}`, filename: RUNTIME_FILENAME, what: 'the guest runtime' },
]

const TAKE_FACTORY_SOURCE = `(() => { const factory = globalThis.${FACTORY_KEY}; delete globalThis.${FACTORY_KEY}; if (typeof factory !== 'function') throw new TypeError('no guest runtime'); return factory })()`

export function enginePreparation(maxStackSizeBytes: number): Preparation {
  return {
    makeBare(module) {
      const runtime = module.newRuntime()
      // Without a limit, deep recursion overflows the host's stack inside WASM instead of
      // raising a catchable error in the guest.
      runtime.setMaxStackSize(maxStackSizeBytes)
      return { runtime, context: runtime.newContext() }
    },
    evaluate(context, runtime) {
      evaluateGuestRuntime(engineContext(context), runtime)
    },
    check(context) {
      const result = context.evalCode(`typeof globalThis.${FACTORY_KEY}`, 'cordon-image-check', { type: 'global' })
      if (result.error) {
        result.error.dispose()
        return false
      }
      return result.value.consume((value) => context.getString(value)) === 'function'
    },
  }
}

interface ImageEntry {
  readonly capture: Promise<EngineImage | undefined>
  /** Set when the capture succeeds. */
  image: EngineImage | undefined
}

/** Per engine and stack size: the image's capture, started on first use. */
const images = new WeakMap<Engine, Map<number, ImageEntry>>()

function imageEntry(engine: Engine, maxStackSizeBytes: number, take = captureEngineImage): ImageEntry {
  let byStack = images.get(engine)
  if (byStack === undefined) images.set(engine, (byStack = new Map<number, ImageEntry>()))
  let entry = byStack.get(maxStackSizeBytes)
  if (entry === undefined) {
    const started: ImageEntry = { capture: take(engine, enginePreparation(maxStackSizeBytes)), image: undefined }
    void started.capture.then((image) => {
      started.image = image
    })
    byStack.set(maxStackSizeBytes, (entry = started))
  }
  return entry
}

/**
 * Gives this engine, for this stack size, an image taken by another engine of the same compiled
 * module (another worker of the same pool): one patched copy checks it, instead of four instances
 * compared; if the check fails the image is taken here as usual. Nothing changes when this
 * engine's image is being taken already.
 */
export function adoptEngineImage(engine: Engine, maxStackSizeBytes: number, image: EngineImage): void {
  imageEntry(engine, maxStackSizeBytes, async (_engine, steps) =>
    (await copyWorks(engine, steps, image).catch(() => false)) ? image : captureEngineImage(engine, steps),
  )
}

/** The engine image for this engine and stack size, once taken (undefined if it cannot be). */
export function engineImage(engine: Engine, maxStackSizeBytes: number): Promise<EngineImage | undefined> {
  return imageEntry(engine, maxStackSizeBytes).capture
}

/** The image if it is taken already; otherwise undefined, and it is being taken. */
function readyImage(engine: Engine, maxStackSizeBytes: number): EngineImage | undefined {
  return imageEntry(engine, maxStackSizeBytes).image
}

function evaluate(context: EngineContext, runtime: EngineRuntime, source: string, filename: string, what: string): EngineHandle {
  const result = context.evalCode(source, filename, { type: 'global' })
  if (!result.error) return result.value
  const detail = context.dump(result.error)
  result.error.dispose()
  context.dispose()
  runtime.dispose()
  throw new Error(`${what} failed to evaluate in QuickJS: ${JSON.stringify(detail)}`)
}

/**
 * Frees the engine's handles, context and runtime (QuickJS's debug builds assert that nothing
 * leaked). The instance itself is garbage afterwards, its memory included.
 */
export function releaseFreshEngine(engine: FreshEngine): void {
  if (engine.runtimeFactory.alive) engine.runtimeFactory.dispose()
  if (engine.context.alive) engine.context.dispose()
  if (engine.runtime.alive) engine.runtime.dispose()
}
