import type { QuickJS, Snapshot } from 'quickjs-wasi'
import { evaluateGuestRuntime, takeRuntimeFactory } from '../fresh-engine.js'
import { WasiContext, WasiRuntime, internals, type WasiModule } from './wasi-context.js'

/**
 * quickjs-wasi's counterpart of the engine image (engine-image.ts): a snapshot of a VM that
 * evaluated the guards and the guest runtime and ran nothing else, restored into every new
 * engine instead of evaluating ~76 KB of JavaScript again (~1 ms instead of ~6 ms). It is taken
 * with a fixed clock and fixed entropy, so it is the same bytes for the same WASM and sources:
 * the build ships it (image-file.ts), and a process that cannot use the shipped one takes its own.
 *
 * A restored VM is byte for byte the snapshotted one, so what QuickJS derived from the clock when
 * its context was made is set anew in each: Math.random's state (from crypto.getRandomValues) and
 * the time origin of `performance` (now). Map's hash seed and the allocator's start-up entropy
 * stay those of the image, the same in every engine (a guest that floods its own Map slows only
 * itself, within its deadline). The snapshot holds no run's data.
 */
export interface WasiImage {
  readonly snapshot: Snapshot
  /** Address of Math.random's 64-bit state. */
  readonly seedAddress: number
  /** Address of the context's time origin (a double, ms): `performance.now()` counts from it. */
  readonly timeOriginAddress: number
  /** Where `performance.timeOrigin`'s value is kept, as QuickJS boxes a double: its bits plus `boxing`. */
  readonly timeOriginValue: { readonly address: number; readonly boxing: bigint }
}

/** The clock the image is taken with (ns): a time the memory holds nowhere else, so its words can be found. */
const IMAGE_CLOCK_NS = 1_234_567_890_123_500_000n
const IMAGE_CLOCK_MS = Number(IMAGE_CLOCK_NS / 1000n) / 1000
/** QuickJS's JSContext is a few hundred bytes; its words are searched for within this much of it. */
const CONTEXT_STRUCT_BYTES = 4096

export interface WasiBuild {
  readonly wasi: WasiModule
  readonly module: WebAssembly.Module
}

/** Takes the image, checked; undefined if a check fails. */
export async function takeWasiImage(build: WasiBuild, maxStackSizeBytes: number): Promise<WasiImage | undefined> {
  // With an interrupt handler, as every restored VM has one: made without, QuickJS's context
  // keeps a countdown to its next interrupt check that a restored VM would then wait out
  // (tens of seconds of a spinning guest before its first check).
  const vm = await build.wasi.QuickJS.create({
    wasm: build.module,
    maxStackSize: maxStackSizeBytes,
    interruptHandler: () => false,
    wasi: fixedClockAndEntropy,
  })
  let image: WasiImage | undefined
  try {
    const context = new WasiContext(build.wasi, vm)
    evaluateGuestRuntime(context, new WasiRuntime(context, { handler: undefined }))
    const snapshot = vm.snapshot()
    const seedAddress = randomStateWord(vm, snapshot.contextPtr)
    const time = timeOriginWords(snapshot)
    if (seedAddress !== undefined && time !== undefined) image = { snapshot, seedAddress, ...time }
  } finally {
    vm.dispose()
  }
  return image !== undefined && (await imageWorks(build, image, maxStackSizeBytes)) ? image : undefined
}

/** Two restored copies hold the guest runtime, draw different numbers and count time from now. */
export async function imageWorks(build: WasiBuild, image: WasiImage, maxStackSizeBytes: number): Promise<boolean> {
  const draws: string[] = []
  for (let i = 0; i < 2; i++) {
    const before = Date.now()
    const copy = await restoreWasiVm(build, image, { maxStackSize: maxStackSizeBytes })
    try {
      const context = new WasiContext(build.wasi, copy)
      const factory = takeRuntimeFactory(context, new WasiRuntime(context, { handler: undefined }))
      const kind = context.typeof(factory)
      factory.dispose()
      const drawn = context.evalCode('JSON.stringify([Math.random(), performance.timeOrigin, performance.now()])', 'cordon-image-check')
      if (kind !== 'function' || drawn.error) return false
      const [random, origin, elapsed] = JSON.parse(drawn.value.consume((value) => context.getString(value))) as [number, number, number]
      const after = Date.now()
      if (origin < before || origin > after || elapsed < 0 || elapsed > after - before + 1) return false
      draws.push(String(random))
    } finally {
      copy.dispose()
    }
  }
  return draws[0] !== draws[1]
}

/** A VM restored from the image, with a Math.random state and a time origin of its own. */
export async function restoreWasiVm(
  build: WasiBuild,
  image: WasiImage,
  limits: { maxStackSize: number; memoryLimit?: number; interruptHandler?: () => boolean },
): Promise<QuickJS> {
  const vm = await build.wasi.QuickJS.restore(image.snapshot, { wasm: build.module, ...limits })
  giveOwnSeedAndTimeOrigin(vm, image)
  return vm
}

/** Sets what a VM restored from `image` must not share with the image: Math.random's state and the time origin. */
export function giveOwnSeedAndTimeOrigin(vm: QuickJS, image: WasiImage): void {
  const memory = internals(vm).exports.memory.buffer
  writeSeed(memory, image.seedAddress)
  // quickjs-wasi's clock is Date.now(), for wall time and QuickJS's monotonic time alike.
  const now = Date.now()
  const words = new DataView(memory)
  words.setFloat64(image.timeOriginAddress, now, true)
  words.setBigUint64(image.timeOriginValue.address, BigInt.asUintN(64, doubleBits(now) + image.timeOriginValue.boxing), true)
}

/**
 * Gives a VM made from the sources (no image) a Math.random state from crypto.getRandomValues.
 * QuickJS seeds it from the clock as the context is made, at microseconds: with the clock's
 * random shift below, two VMs made in one millisecond still shared their numbers 1 time in 1,000
 * (seen in CI). Left to the clock if the state word is not found as exactly one.
 */
export function seedMathRandom(vm: QuickJS): void {
  const inside = internals(vm).exports
  const address = randomStateWord(vm, inside.qjs_get_context_ptr())
  if (address !== undefined) writeSeed(inside.memory.buffer, address)
}

/** Eight random bytes at `address`, never all zero (xorshift64* would stay at zero). */
function writeSeed(memory: ArrayBufferLike, address: number): void {
  const seed = new Uint8Array(memory, address, 8)
  globalThis.crypto.getRandomValues(seed)
  if (seed.every((byte) => byte === 0)) seed[0] = 1
}

/**
 * WASI's clock for a VM made from the sources (no image): quickjs-wasi's own (Date.now(), for wall
 * and monotonic time alike), shifted by a random part of a millisecond chosen per VM. QuickJS
 * seeds Math.random from that clock as the context is made, so with whole milliseconds two VMs
 * made within one (two sandboxes starting together) drew the same numbers (seedMathRandom then
 * replaces that seed; the shift stays for a VM whose state word is not found). The shift is under
 * a millisecond and fixed, so the clock stays monotonic and Date.now() as it was.
 */
export function clockWithRandomShift(memory: WebAssembly.Memory) {
  const shift = new BigUint64Array(1)
  globalThis.crypto.getRandomValues(shift)
  const shiftNs = shift[0]! % 1_000_000n
  return {
    clock_time_get(_clock: number, _precision: bigint, resultAddress: number): number {
      new DataView(memory.buffer).setBigUint64(resultAddress, BigInt(Date.now()) * 1_000_000n + shiftNs, true)
      return 0
    },
  }
}

/** WASI's clock and entropy for taking the image: the same bytes every time. */
function fixedClockAndEntropy(memory: WebAssembly.Memory) {
  return {
    clock_time_get(_clock: number, _precision: bigint, resultAddress: number): number {
      new DataView(memory.buffer).setBigUint64(resultAddress, IMAGE_CLOCK_NS, true)
      return 0
    },
    random_get(address: number, length: number): number {
      new Uint8Array(memory.buffer, address, length).fill(0x5a)
      return 0
    },
  }
}

/**
 * The time origin's two words: the context's double (exactly the image's clock) and the boxed
 * value of `performance.timeOrigin` (the only other word whose low half is the clock's: QuickJS
 * boxes a double by adding a constant to its high half). Undefined unless each is exactly one and
 * the first lies in the context.
 */
function timeOriginWords(snapshot: Snapshot): Pick<WasiImage, 'timeOriginAddress' | 'timeOriginValue'> | undefined {
  const clock = doubleBits(IMAGE_CLOCK_MS)
  const words = new DataView(snapshot.memory.buffer, snapshot.memory.byteOffset, snapshot.memory.byteLength)
  const exact: number[] = []
  const boxed: number[] = []
  for (let at = 0; at + 8 <= words.byteLength; at += 8) {
    if (words.getUint32(at, true) !== Number(clock & 0xffffffffn)) continue
    if (words.getBigUint64(at, true) === clock) exact.push(at)
    else boxed.push(at)
  }
  const [origin, value] = [exact[0]!, boxed[0]!]
  const inContext = origin >= snapshot.contextPtr && origin < snapshot.contextPtr + CONTEXT_STRUCT_BYTES
  if (exact.length !== 1 || boxed.length !== 1 || !inContext) return undefined
  const boxing = BigInt.asUintN(64, words.getBigUint64(value, true) - clock)
  return { timeOriginAddress: origin, timeOriginValue: { address: value, boxing } }
}

function doubleBits(value: number): bigint {
  const view = new DataView(new ArrayBuffer(8))
  view.setFloat64(0, value, true)
  return view.getBigUint64(0, true)
}

/**
 * The word of the context that Math.random changes and nothing else does: calling it and
 * calling Math.abs both move QuickJS's countdown to the next interrupt check (a word nearby), so
 * the state is what the first call changes beyond what the second does. Undefined unless that is
 * exactly one 8-byte word (then there is no image).
 */
function randomStateWord(vm: QuickJS, contextPtr: number): number | undefined {
  const memory = internals(vm).exports.memory
  const start = contextPtr - (contextPtr % 8)
  const end = Math.min(start + CONTEXT_STRUCT_BYTES, memory.buffer.byteLength)
  const contextBytes = (): Uint8Array => new Uint8Array(memory.buffer).slice(start, end)
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
