import type { QuickJSContext, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core'
import type { Engine } from './engine-loader.js'
import { MemoryGuard, WASM_PAGE_BYTES } from './memory-guard.js'

/**
 * A prepared engine's linear memory, as the bytes to write into a new instance that has only
 * made its runtime and context. Why: compiling the guest runtime and the length guard (~55 KB of
 * JavaScript) is most of what a fresh engine costs (~10 ms); patching ~300 KB takes ~0.3 ms.
 *
 * It is sound because QuickJS allocates deterministically: a new instance that makes a runtime
 * and a context the same way gets the same pointers and the same heap, and after the patch its
 * memory is byte for byte that of an instance that evaluated the sources itself. What differs
 * from instance to instance are a few 8-byte words QuickJS fills from the clock when it makes a
 * context: Math.random's state in both builds, and in quickjs-ng also `performance`'s time origin
 * (in the context and in `performance.timeOrigin`). They are found by comparing two preparations
 * and never patched, so every copy keeps its own; Math.random's state (the word that changes
 * when the guest calls it) is then drawn anew from crypto.getRandomValues for every copy.
 *
 * Only memory below the four instances' heaps is compared (see writtenBelow); above them nothing
 * was written. Everything is checked when the image is taken (the pointers of four instances agree, two
 * preparations differ in the same few words as two bare instances, one of them inside the context
 * is Math.random's, a patched copy runs a program), and every copy checks its pointers again. When
 * a check fails there is no image and every engine evaluates the sources, as it always could.
 */
export interface EngineImage {
  /** Pages of linear memory the patched instance needs. */
  readonly pages: number
  readonly runtimePointer: number
  readonly contextPointer: number
  /** Address of Math.random's 64-bit state. */
  readonly seedAddress: number
  /** The memories were compared below this address; above it no instance had written anything. */
  readonly comparedBytes: number
  readonly patches: readonly { readonly at: number; readonly bytes: Uint8Array }[]
}

/** Whether a value (an image a worker sent) has an EngineImage's shape. */
export function isEngineImage(value: unknown): value is EngineImage {
  if (typeof value !== 'object' || value === null) return false
  const image = value as Record<keyof EngineImage, unknown>
  const counts = [image.pages, image.runtimePointer, image.contextPointer, image.seedAddress, image.comparedBytes]
  return (
    counts.every((count) => Number.isSafeInteger(count) && (count as number) >= 0) &&
    Array.isArray(image.patches) &&
    image.patches.every(
      (patch: unknown) =>
        typeof patch === 'object' &&
        patch !== null &&
        Number.isSafeInteger((patch as { at?: unknown }).at) &&
        (patch as { bytes?: unknown }).bytes instanceof Uint8Array,
    )
  )
}

/** The steps the image stands for: turning a bare engine into a prepared one, and checking one. */
export interface Preparation {
  makeBare(module: QuickJSWASMModule): { runtime: QuickJSRuntime; context: QuickJSContext }
  /** Evaluates the sources into a bare engine (also the path every engine takes without an image). */
  evaluate(context: QuickJSContext, runtime: QuickJSRuntime): void
  /** Whether a prepared engine holds what `evaluate` put there. */
  check(context: QuickJSContext): boolean
}

/**
 * Beyond this many bytes to write, patching is no cheaper than evaluating (the release build
 * writes ~0.3 MB; QuickJS's debug build ~38 MB, so it evaluates).
 */
const MAX_PATCH_BYTES = 4 * 1024 * 1024

/** A difference of up to this many equal bytes still joins two patches into one. */
const PATCH_GAP = 64

/** Where QuickJS keeps Math.random's state relative to the context: within its JSContext struct. */
const CONTEXT_STRUCT_BYTES = 4096

/** Per-instance heap words an image may leave alone (bellard's QuickJS has 1, quickjs-ng 3). */
const MAX_HEAP_INSTANCE_WORDS = 8

/** ...and per-instance words in all (the C stack's leftovers included). */
const MAX_INSTANCE_WORDS = 64

/**
 * Takes and checks the image. Resolves undefined when any check fails.
 *
 * The instances' memories are compared where they live, a slice at a time with a turn of the
 * event loop between slices: a copy of each (16 MiB, mostly never touched) and one long scan
 * held the thread for hundreds of milliseconds where first touches of memory are slow (a fresh
 * VM), which in inline mode stalled the host's event loop and in a worker held up the runs sent to it.
 */
export async function captureEngineImage(engine: Engine, steps: Preparation): Promise<EngineImage | undefined> {
  const instances: { runtime: QuickJSRuntime; context: QuickJSContext }[] = []
  interface Taken {
    memory: WebAssembly.Memory
    runtime: number
    context: number
    /** No byte at or above it was written (see writtenBelow); the memory's size when unknown. */
    end: number
    made: { runtime: QuickJSRuntime; context: QuickJSContext }
  }
  // Math.random's state is seeded from the clock, in whole milliseconds here: two instances made
  // within one millisecond share it, and the word would differ in one pair but not the other
  // (seen beside a busy install: the bare pair matched, the image was refused). Each instance
  // starts in a millisecond after the one in which the last was made.
  let lastMadeMs = -Infinity
  const instance = async (prepare: boolean): Promise<Taken> => {
    while (Date.now() <= lastMadeMs) await nextTurn()
    const guard = new MemoryGuard(engine.initialPages, engine.capPagesFor(256))
    const module = await engine.instantiate(guard)
    const made = steps.makeBare(module)
    lastMadeMs = Date.now()
    instances.push(made)
    if (prepare) steps.evaluate(made.context, made.runtime)
    const end = writtenBelow(module, engine.heapStartBytes) ?? guard.memory.buffer.byteLength
    await nextTurn()
    return { memory: guard.memory, runtime: pointerOf(made.runtime, 'rt'), context: pointerOf(made.context, 'ctx'), end, made }
  }
  try {
    const first = await instance(true)
    const second = await instance(true)
    const bare = await instance(false)
    const otherBare = await instance(false)
    const samePointers = [second, bare, otherBare].every((other) => other.runtime === first.runtime && other.context === first.context)
    const size = first.memory.buffer.byteLength
    if (!samePointers || first.runtime <= 0 || second.memory.buffer.byteLength !== size) return undefined
    if (bare.memory.buffer.byteLength !== size || otherBare.memory.buffer.byteLength !== size) return undefined
    // The words each instance fills for itself, which the patch leaves alone. In the heap they must
    // be the same in prepared and bare instances (so a bare engine holds its own value of the same
    // thing there); below it, in the C stack, what calls left behind may differ anywhere.
    // Above every instance's heap, all four memories are untouched zeros: not read at all (a first
    // read of a page costs as much as a first write where memory is slow to map, and most is above).
    const end = Math.min(size, Math.max(first.end, second.end, bare.end, otherBare.end))
    const prepared = await instanceWords(first.memory, second.memory, end)
    const bares = await instanceWords(bare.memory, otherBare.memory, end)
    if (prepared === undefined || bares === undefined) return undefined
    const inHeap = (word: number): boolean => word >= engine.heapStartBytes
    const heapWords = prepared.filter(inHeap)
    if (heapWords.length > MAX_HEAP_INSTANCE_WORDS || !sameWords(heapWords, bares.filter(inHeap))) return undefined
    const words = [...new Set([...prepared, ...bares])].sort((a, b) => a - b)
    // Towards the prepared memory with the bare engine's own values in those words; taken before
    // randomStateWord runs code in `first`.
    const patches = await patchesBetween(bare.memory, first.memory, words, end)
    if (patches === undefined) return undefined
    const seedAddress = randomStateWord(first, heapWords)
    if (seedAddress === undefined) return undefined
    const image: EngineImage = {
      pages: size / WASM_PAGE_BYTES,
      runtimePointer: first.runtime,
      contextPointer: first.context,
      seedAddress,
      comparedBytes: end,
      patches,
    }
    return (await copyWorks(engine, steps, image)) ? image : undefined
  } catch {
    return undefined
  } finally {
    for (const { context, runtime } of instances) {
      if (context.alive) context.dispose()
      if (runtime.alive) runtime.dispose()
    }
  }
}

/**
 * Turns a bare engine (made by MakeBare in a memory of at least `image.pages`) into a prepared
 * one. False, with nothing written, when its pointers are not the image's.
 */
export function applyEngineImage(
  image: EngineImage,
  memory: WebAssembly.Memory,
  runtime: QuickJSRuntime,
  context: QuickJSContext,
): boolean {
  if (pointerOf(runtime, 'rt') !== image.runtimePointer || pointerOf(context, 'ctx') !== image.contextPointer) return false
  if (memory.buffer.byteLength < image.pages * WASM_PAGE_BYTES) return false
  const bytes = new Uint8Array(memory.buffer)
  for (const patch of image.patches) bytes.set(patch.bytes, patch.at)
  const seed = bytes.subarray(image.seedAddress, image.seedAddress + 8)
  globalThis.crypto.getRandomValues(seed)
  // xorshift64* never leaves the all-zero state.
  if (seed.every((byte) => byte === 0)) seed[0] = 1
  return true
}

/** Bytes compared between two turns of the event loop (see captureEngineImage). */
const SLICE_BYTES = 1024 * 1024

/** Lets the thread's other work (a run sent to a worker, the host's own callbacks inline) go first. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof setImmediate === 'function') setImmediate(resolve)
    else setTimeout(resolve, 0)
  })
}

/** The aligned 8-byte words in which two instances made the same way differ (a few at most), ascending. */
async function instanceWords(a: WebAssembly.Memory, b: WebAssembly.Memory, end: number): Promise<number[] | undefined> {
  const words: number[] = []
  // Compared as 32-bit halves; a word differs when either half does.
  const x = new Int32Array(a.buffer, 0, end / 4)
  const y = new Int32Array(b.buffer, 0, end / 4)
  const step = SLICE_BYTES / 4
  for (let from = 0; from < x.length; from += step) {
    const to = Math.min(x.length, from + step)
    for (let i = from; i < to; i++) {
      if (x[i] === y[i]) continue
      const start = i * 4 - ((i * 4) % 8)
      if (words[words.length - 1] !== start) words.push(start)
      if (words.length > MAX_INSTANCE_WORDS) return undefined
    }
    await nextTurn()
  }
  return words
}

function sameWords(a: readonly number[], b: readonly number[] | undefined): boolean {
  return b !== undefined && a.length === b.length && a.every((word, i) => word === b[i])
}

/**
 * Math.random's state: the one per-instance word inside the context that changes when the guest
 * calls Math.random (the time origin next to it in quickjs-ng does not).
 */
function randomStateWord(
  taken: { memory: WebAssembly.Memory; context: number; made: { context: QuickJSContext } },
  words: readonly number[],
): number | undefined {
  const candidates = words.filter((word) => word >= taken.context && word + 8 <= taken.context + CONTEXT_STRUCT_BYTES)
  const read = (word: number): string => new Uint8Array(taken.memory.buffer, word, 8).join()
  const before = candidates.map(read)
  const result = taken.made.context.evalCode('Math.random()', 'cordon-image-check', { type: 'global' })
  const failed = result.error !== undefined
  ;(result.error ?? result.value).dispose()
  if (failed) return undefined
  const changed = candidates.filter((word, i) => read(word) !== before[i])
  return changed.length === 1 ? changed[0] : undefined
}

/**
 * The patches that turn `from` (a bare instance) into `to` (a prepared one), but for the aligned
 * 8-byte `skipped` words (ascending), which keep `from`'s bytes. Undefined past MAX_PATCH_BYTES.
 */
async function patchesBetween(
  fromMemory: WebAssembly.Memory,
  toMemory: WebAssembly.Memory,
  skipped: readonly number[],
  end: number,
): Promise<EngineImage['patches'] | undefined> {
  const from = new Uint8Array(fromMemory.buffer, 0, end)
  const to = new Uint8Array(toMemory.buffer, 0, end)
  const skippedSet = new Set(skipped)
  const same = (i: number): boolean => from[i] === to[i] || skippedSet.has(i - (i % 8))
  // Equal stretches are skipped four bytes at a time.
  const from32 = new Int32Array(fromMemory.buffer, 0, end / 4)
  const to32 = new Int32Array(toMemory.buffer, 0, end / 4)
  const patches: { at: number; bytes: Uint8Array }[] = []
  let total = 0
  let i = 0
  let nextYield = SLICE_BYTES
  while (i < to.length) {
    if (i >= nextYield) {
      await nextTurn()
      nextYield = i + SLICE_BYTES
    }
    if (i % 4 === 0 && from32[i / 4] === to32[i / 4]) {
      i += 4
      continue
    }
    if (same(i)) {
      i++
      continue
    }
    let end = i + 1
    for (let equal = 0; end < to.length && equal < PATCH_GAP; end++) equal = same(end) ? equal + 1 : 0
    while (end > i + 1 && same(end - 1)) end--
    const bytes = to.slice(i, end)
    for (let at = i; at < end; at++) if (skippedSet.has(at - (at % 8))) bytes[at - i] = from[at] as number
    patches.push({ at: i, bytes })
    total += bytes.length
    if (total > MAX_PATCH_BYTES) return undefined
    i = end
  }
  return patches
}

/**
 * A patched copy must hold what the preparation put there and run a program. Also how an image
 * taken elsewhere (another worker of the same pool) is checked before this engine uses it.
 */
export async function copyWorks(engine: Engine, steps: Preparation, image: EngineImage): Promise<boolean> {
  const guard = new MemoryGuard(Math.max(engine.initialPages, image.pages), engine.capPagesFor(256))
  const { runtime, context } = steps.makeBare(await engine.instantiate(guard))
  try {
    if (!applyEngineImage(image, guard.memory, runtime, context) || !steps.check(context)) return false
    const result = context.evalCode('[1, 2, 3].map((n) => n * 2).join() + typeof Math.random()', 'cordon-image-check', { type: 'global' })
    if (result.error) {
      result.error.dispose()
      return false
    }
    return result.value.consume((value) => context.getString(value)) === '2,4,6number'
  } finally {
    context.dispose()
    runtime.dispose()
  }
}

/** What writtenBelow asks the allocator for: more than the heap of an instance made here spans (~0.7 MiB). */
const PROBE_BYTES = 2 * 1024 * 1024

/**
 * An address below which everything the instance wrote lies (static data, C stack, heap), rounded
 * up to a WebAssembly page; undefined when it cannot be told. Measured, as the heap's start is:
 * the instance's heap never spanned PROBE_BYTES, so malloc holds no free block that big and cuts
 * the probe's block from the top of its heap; nothing lies above that block but the allocator's
 * own words just after it. A block further than PROBE_BYTES above the heap's start means a bigger
 * heap than that, and the whole memory is compared. The block is freed at once, in every instance
 * alike. engine-image.test.ts compares a patched engine with one that evaluated the sources over
 * the whole memory.
 */
function writtenBelow(module: QuickJSWASMModule, heapStart: number): number | undefined {
  const emscripten = (module as unknown as { module?: { _malloc?: (n: number) => number; _free?: (p: number) => void } }).module
  if (typeof emscripten?._malloc !== 'function' || typeof emscripten._free !== 'function') return undefined
  const block = emscripten._malloc(PROBE_BYTES)
  if (block <= 0) return undefined
  emscripten._free(block)
  if (block < heapStart || block - heapStart >= PROBE_BYTES) return undefined
  return Math.ceil((block + PROBE_BYTES + 64) / WASM_PAGE_BYTES) * WASM_PAGE_BYTES
}

/** A wrapper's C pointer; quickjs-emscripten keeps it in a public field its types do not declare. */
function pointerOf(wrapper: QuickJSRuntime | QuickJSContext, field: 'rt' | 'ctx'): number {
  const value = (wrapper as unknown as Record<string, { value?: unknown } | undefined>)[field]?.value
  return typeof value === 'number' ? value : -1
}
