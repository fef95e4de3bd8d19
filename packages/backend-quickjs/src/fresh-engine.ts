import { GUEST_RUNTIME_SOURCE, SandboxError } from '@cordon/core'
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core'
import type { Engine } from './engine-loader.js'
import { LENGTH_GUARD_FILENAME, LENGTH_GUARD_SOURCE } from './length-guard-source.js'
import { MemoryGuard } from './memory-guard.js'

/** The file name of the guest runtime in stacks; it must not end in the guest's own file name. */
export const RUNTIME_FILENAME = 'cordon-runtime'

/**
 * Everything a run needs that does not depend on the run: a WASM instance of its own, a
 * runtime and a context in it, and GUEST_RUNTIME_SOURCE evaluated to its factory function
 * (not yet called, so no host function is reachable and no global has changed). Prepared
 * ahead of time by the pool, used by exactly one run or one session, then thrown away.
 */
export interface FreshEngine {
  readonly guard: MemoryGuard
  readonly module: QuickJSWASMModule
  readonly runtime: QuickJSRuntime
  readonly context: QuickJSContext
  /** `(host) => GuestRuntime`. */
  readonly runtimeFactory: QuickJSHandle
  /** Bytes of the linear memory below the heap (static data, C stack), not counted as the guest's. */
  readonly heapStartBytes: number
}

export async function createFreshEngine(engine: Engine, capPages: number, maxStackSizeBytes: number): Promise<FreshEngine> {
  const guard = new MemoryGuard(engine.initialPages, capPages)
  try {
    return await prepare(engine, guard, maxStackSizeBytes)
  } catch (error) {
    if (!guard.exceeded) throw error
    throw new SandboxError('MEMORY_LIMIT', 'memoryMb is too small for QuickJS and the guest runtime themselves', { cause: error })
  }
}

async function prepare(engine: Engine, guard: MemoryGuard, maxStackSizeBytes: number): Promise<FreshEngine> {
  const module = await engine.instantiate(guard)
  const runtime = module.newRuntime()
  // Without a limit, deep recursion overflows the host's stack inside WASM instead of
  // raising a catchable error in the guest.
  runtime.setMaxStackSize(maxStackSizeBytes)
  const context = runtime.newContext()
  // Before the guest runtime, so it too captures the guarded built-ins (see length-guard.ts).
  evaluate(context, runtime, LENGTH_GUARD_SOURCE, LENGTH_GUARD_FILENAME, 'the length guard').dispose()
  const runtimeFactory = evaluate(context, runtime, GUEST_RUNTIME_SOURCE, RUNTIME_FILENAME, 'the guest runtime')
  return { guard, module, runtime, context, runtimeFactory, heapStartBytes: engine.heapStartBytes }
}

function evaluate(context: QuickJSContext, runtime: QuickJSRuntime, source: string, filename: string, what: string): QuickJSHandle {
  const result = context.evalCode(source, filename, { type: 'global' })
  if (!result.error) return result.value
  const detail = context.dump(result.error) as unknown
  result.error.dispose()
  context.dispose()
  runtime.dispose()
  throw new Error(`${what} failed to evaluate in QuickJS: ${JSON.stringify(detail)}`)
}

/** Bytes of guest heap: the linear memory's high-water mark above QuickJS's static area. */
export function heapBytesOf(engine: FreshEngine): number {
  return Math.max(0, engine.guard.byteLength - engine.heapStartBytes)
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
