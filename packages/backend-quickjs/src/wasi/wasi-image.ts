import type { QuickJS, Snapshot } from 'quickjs-wasi'
import { evaluateGuestRuntime, takeRuntimeFactory } from '../fresh-engine.js'
import { WasiContext, WasiRuntime, internals, type WasiModule } from './wasi-context.js'

/**
 * quickjs-wasi's counterpart of the engine image (engine-image.ts): a snapshot of a VM that
 * evaluated the guards and the guest runtime and ran nothing else, restored into every new
 * engine instead of evaluating ~76 KB of JavaScript again (~1 ms instead of ~6 ms). A restored
 * VM is byte for byte the snapshotted one, so the one per-VM secret, Math.random's state (seeded
 * from the clock when the context was made), is drawn anew for each from crypto.getRandomValues.
 * Where it lives is found when the snapshot is taken (see randomStateWord). The snapshot never leaves the process and holds no run's
 * data. Where a check fails there is no image, and every engine evaluates the sources.
 */
export interface WasiImage {
  readonly snapshot: Snapshot
  /** Address of Math.random's 64-bit state in the restored memory. */
  readonly seedAddress: number
}

/** QuickJS's JSContext is a few hundred bytes; the state is searched for within this much of it. */
const CONTEXT_STRUCT_BYTES = 4096

export interface WasiBuild {
  readonly wasi: WasiModule
  readonly module: WebAssembly.Module
}

/** Takes the image for this stack size, checked; undefined if a check fails. */
export async function takeWasiImage(build: WasiBuild, maxStackSizeBytes: number): Promise<WasiImage | undefined> {
  // With an interrupt handler, as every restored VM has one: made without, QuickJS's context
  // keeps a countdown to its next interrupt check that a restored VM would then wait out
  // (tens of seconds of a spinning guest before its first check).
  const vm = await build.wasi.QuickJS.create({ wasm: build.module, maxStackSize: maxStackSizeBytes, interruptHandler: () => false })
  let image: WasiImage | undefined
  try {
    const context = new WasiContext(build.wasi, vm)
    evaluateGuestRuntime(context, new WasiRuntime(context, { handler: undefined }))
    const snapshot = vm.snapshot()
    const seedAddress = randomStateWord(vm, snapshot)
    if (seedAddress !== undefined) image = { snapshot, seedAddress }
  } finally {
    vm.dispose()
  }
  if (image === undefined) return undefined
  // Two copies hold the guest runtime and draw different numbers.
  const draws: string[] = []
  for (let i = 0; i < 2; i++) {
    const copy = await restoreWasiVm(build, image, { maxStackSize: maxStackSizeBytes })
    try {
      const context = new WasiContext(build.wasi, copy)
      const factory = takeRuntimeFactory(context, new WasiRuntime(context, { handler: undefined }))
      const kind = context.typeof(factory)
      factory.dispose()
      const drawn = context.evalCode('String(Math.random())', 'cordon-image-check')
      if (kind !== 'function' || drawn.error) return undefined
      draws.push(drawn.value.consume((value) => context.getString(value)))
    } finally {
      copy.dispose()
    }
  }
  return draws[0] !== draws[1] ? image : undefined
}

/** A VM restored from the image, with a Math.random state of its own. */
export async function restoreWasiVm(
  build: WasiBuild,
  image: WasiImage,
  limits: { maxStackSize: number; memoryLimit?: number; interruptHandler?: () => boolean },
): Promise<QuickJS> {
  const vm = await build.wasi.QuickJS.restore(image.snapshot, { wasm: build.module, ...limits })
  const seed = new Uint8Array(internals(vm).exports.memory.buffer, image.seedAddress, 8)
  globalThis.crypto.getRandomValues(seed)
  // xorshift64* never leaves an all-zero state.
  if (seed.every((byte) => byte === 0)) seed[0] = 1
  return vm
}

/**
 * The word of the context that Math.random changes and nothing else does: calling it and
 * calling Math.abs both move QuickJS's countdown to the next interrupt check (a word nearby), so
 * the state is what the first call changes beyond what the second does. Undefined unless that is
 * exactly one 8-byte word (then there is no image).
 */
function randomStateWord(vm: QuickJS, snapshot: Snapshot): number | undefined {
  const start = snapshot.contextPtr - (snapshot.contextPtr % 8)
  const end = Math.min(start + CONTEXT_STRUCT_BYTES, snapshot.memory.length)
  const contextBytes = (): Uint8Array => new Uint8Array(internals(vm).exports.memory.buffer).slice(start, end)
  const changedWords = (from: Uint8Array, to: Uint8Array): Set<number> => {
    const words = new Set<number>()
    for (let at = 0; at + 8 <= from.length; at += 8) {
      for (let i = 0; i < 8; i++) {
        if (from[at + i] !== to[at + i]) {
          words.add(start + at)
          break
        }
      }
    }
    return words
  }
  const before = contextBytes()
  vm.evalCode('Math.abs(1)', 'cordon-image-check').dispose()
  const neutral = contextBytes()
  vm.evalCode('Math.random()', 'cordon-image-check').dispose()
  const drawn = contextBytes()
  const moving = changedWords(before, neutral)
  const state = [...changedWords(neutral, drawn)].filter((word) => !moving.has(word))
  return state.length === 1 ? state[0] : undefined
}
