import type { QuickJS } from 'quickjs-wasi'
import { giveOwnSeedAndTimeOrigin, type WasiBuild, type WasiImage } from './wasi-image.js'

/**
 * Makes a VM that was restored from an image and used by a run fresh again, in place: what a new
 * restore gives, without a new WASM instance and new memory (~1.7 ms here, a third of it the first
 * touch of the new memory's pages; rewriting memory already touched takes ~0.05 ms).
 *
 * A quickjs-wasi VM's state is its linear memory, its one mutable global (the C stack pointer),
 * its function table, and the JavaScript fields of its QuickJS object. All are set back to what
 * `QuickJS.restore` leaves: the memory to the image's bytes (and zeros after them), the stack
 * pointer and the runtime and context pointers to the image's, the object's fields to a new
 * object's (its host callbacks, handles and handlers go), then the limits and, as for every
 * restored VM, a Math.random state and a time origin of its own. Nothing the earlier guest did
 * is left in any of them.
 *
 * Refused (false, the VM is left as it is) when the memory grew past the image's size (the guest
 * allocated a lot: a new instance's memory starts at the image's size, and the allocator would
 * see the extra pages as its own) or the function table changed (nothing in the module changes
 * it; a changed one is not trusted).
 */
export function recycleWasiVm(
  build: WasiBuild,
  vm: QuickJS,
  image: WasiImage,
  check: RecycleCheck,
  limits: { maxStackSize: number; memoryLimit?: number; interruptHandler: () => boolean },
): boolean {
  const exports = privateParts(vm).exports
  const memory = new Uint8Array(exports.memory.buffer)
  if (memory.byteLength !== check.memoryBytes || !tableUnchanged(exports.__indirect_function_table, check.entries)) return false
  const { snapshot } = image
  memory.set(snapshot.memory)
  memory.fill(0, snapshot.memory.byteLength)
  // A new object's fields: quickjs-wasi 3.7.0 (pinned) keeps no other state per VM.
  const fresh = Reflect.construct(build.wasi.QuickJS, [build.module]) as Record<string, unknown>
  const fields = vm as unknown as Record<string, unknown>
  for (const key of Object.keys(fresh)) if (!KEPT_FIELDS.has(key)) fields[key] = fresh[key]
  exports.qjs_set_runtime_and_context(snapshot.runtimePtr, snapshot.contextPtr)
  exports.__stack_pointer.value = snapshot.stackPointer
  ;(build.wasi.QuickJS as unknown as { applyLimits(vm: QuickJS, limits: object): void }).applyLimits(vm, limits)
  giveOwnSeedAndTimeOrigin(vm, image)
  return true
}

/** What a VM looked like right after its restore: its memory's size and its function table. */
export interface RecycleCheck {
  readonly memoryBytes: number
  readonly entries: readonly unknown[]
}

/** Taken right after `QuickJS.restore`, to compare with when the VM is recycled. */
export function recycleCheck(vm: QuickJS): RecycleCheck {
  const { memory, __indirect_function_table: table } = privateParts(vm).exports
  const entries: unknown[] = []
  for (let i = 0; i < table.length; i++) entries.push(table.get(i))
  return { memoryBytes: memory.buffer.byteLength, entries }
}

/** The fields that tie the object to its instance. */
const KEPT_FIELDS = new Set(['module', 'instance', 'exports'])

function tableUnchanged(table: WebAssembly.Table, entries: readonly unknown[]): boolean {
  if (table.length !== entries.length) return false
  for (let i = 0; i < entries.length; i++) if (table.get(i) !== entries[i]) return false
  return true
}

interface PrivateParts {
  readonly exports: {
    readonly memory: WebAssembly.Memory
    readonly __indirect_function_table: WebAssembly.Table
    readonly __stack_pointer: WebAssembly.Global
    qjs_set_runtime_and_context(runtimePtr: number, contextPtr: number): void
  }
}

const privateParts = (vm: QuickJS): PrivateParts => vm as unknown as PrivateParts
