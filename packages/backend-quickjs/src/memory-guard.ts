export const WASM_PAGE_BYTES = 64 * 1024

/**
 * The memory limit of one run: a WebAssembly.Memory of its own, capped at `capPages`.
 *
 * Why not `runtime.setMemoryLimit`: in quickjs-emscripten 0.32.0 QuickJS cannot measure block
 * sizes under Emscripten (`malloc_usable_size` reports 0), so that limit bounds each single
 * allocation but not their sum (quickjs-emscripten issue #271); 40 strings of 1 MB pass an 8 MB
 * limit. The linear memory, though, is where every byte of the guest lives, so capping it is a
 * real bound: the engine itself refuses to grow past `maximum`.
 *
 * Why the run still ends with MEMORY_LIMIT when the guest catches QuickJS's "out of memory"
 * error: Emscripten grows the heap through `memory.grow`, which we wrap. A refused growth that
 * no retry satisfied means an allocation failed, and that is recorded for good (`exceeded`):
 * the guest cannot undo it, and the run stops at the next interrupt check.
 *
 * Emscripten asks for extra room first and retries with less, 3 attempts in one resize, all
 * within one synchronous call. So a refusal followed by a growth that succeeds is a retry that
 * worked, not a failure; three refusals in a row are a failed allocation; and a refusal still
 * pending when anything else happens (the next interrupt check, a host call, the end of an
 * engine call) failed too, whatever the number of attempts a build makes.
 *
 * Not counted: a single request beyond Emscripten's 2 GiB heap maximum, which it refuses
 * without trying to grow; the guest can catch that one, as V8 lets it catch a failed
 * `new ArrayBuffer(2 ** 31)`.
 */
export class MemoryGuard {
  readonly memory: WebAssembly.Memory
  private refusedInARow = 0
  private failed = false

  constructor(
    initialPages: number,
    readonly capPages: number,
  ) {
    this.memory = new WebAssembly.Memory({ initial: initialPages, maximum: Math.max(initialPages, capPages) })
    const realGrow = this.memory.grow.bind(this.memory)
    Object.defineProperty(this.memory, 'grow', {
      value: (deltaPages: number): number => this.grow(realGrow, deltaPages),
    })
  }

  /** True once an allocation failed because the cap was reached. */
  get exceeded(): boolean {
    if (this.refusedInARow > 0) this.failed = true
    return this.failed
  }

  /** Bytes of linear memory in use: the heap's high-water mark, since a WASM memory never shrinks. */
  get byteLength(): number {
    return this.memory.buffer.byteLength
  }

  private grow(realGrow: (delta: number) => number, deltaPages: number): number {
    const currentPages = this.memory.buffer.byteLength / WASM_PAGE_BYTES
    const target = currentPages + Number(deltaPages)
    if (target > this.capPages) {
      if (++this.refusedInARow >= 3) this.failed = true
      throw new RangeError('the guest reached its memory limit')
    }
    this.refusedInARow = 0
    return realGrow(deltaPages)
  }
}
