import { describe, expect, test } from 'vitest'
import { MemoryGuard, WASM_PAGE_BYTES } from '../src/memory-guard.js'

/** Grows as Emscripten's resize does: one call per attempt, a refusal is a thrown error. */
function attempt(guard: MemoryGuard, deltaPages: number): boolean {
  try {
    guard.memory.grow(deltaPages)
    return true
  } catch {
    return false
  }
}

describe('MemoryGuard', () => {
  test('the memory starts at the initial size and the engine itself refuses to pass the cap', () => {
    const guard = new MemoryGuard(2, 4)
    expect(guard.byteLength).toBe(2 * WASM_PAGE_BYTES)
    expect(WebAssembly.Memory.prototype.grow.call(guard.memory, 2)).toBe(2)
    expect(() => WebAssembly.Memory.prototype.grow.call(guard.memory, 1)).toThrow(RangeError)
  })

  test('growing within the cap is not a failure', () => {
    const guard = new MemoryGuard(1, 4)
    expect(attempt(guard, 3)).toBe(true)
    expect(guard.exceeded).toBe(false)
  })

  test('a refused over-allocation followed by a smaller retry that fits is not a failure', () => {
    const guard = new MemoryGuard(1, 4)
    expect(attempt(guard, 5)).toBe(false)
    expect(attempt(guard, 3)).toBe(true)
    expect(guard.exceeded).toBe(false)
  })

  test('three refusals in a row (a whole Emscripten resize) are a failure at once', () => {
    const guard = new MemoryGuard(1, 4)
    for (const delta of [8, 6, 5]) expect(attempt(guard, delta)).toBe(false)
    expect(guard.exceeded).toBe(true)
    // Sticky: the guest cannot undo it by freeing memory or growing a little.
    expect(attempt(guard, 1)).toBe(true)
    expect(guard.exceeded).toBe(true)
  })

  test('a refusal still pending when anyone looks is a failure', () => {
    const guard = new MemoryGuard(1, 4)
    expect(attempt(guard, 9)).toBe(false)
    expect(guard.exceeded).toBe(true)
  })
})
