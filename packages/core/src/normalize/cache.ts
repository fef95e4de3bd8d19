import type { NormalizeResult } from './types.js'

/** Programs this short are kept: a host that runs the same code again skips the parse (~0.5 ms cold). */
const MAX_CACHED_CODE_CHARS = 16 * 1024
/** Most recently used entries kept; at most ~4 MB of text with the longest programs. */
const MAX_ENTRIES = 64

/**
 * Normalization is a pure function of the code and the options, so its results are kept for
 * recent programs (plugin hosts and agents often run the same code many times). Results are
 * frozen, so no caller can change what the next run gets.
 */
export class NormalizeCache {
  private readonly entries = new Map<string, NormalizeResult>()

  get(code: string, persistTopLevel: boolean): NormalizeResult | undefined {
    if (code.length > MAX_CACHED_CODE_CHARS) return undefined
    const key = keyOf(code, persistTopLevel)
    const hit = this.entries.get(key)
    if (hit === undefined) return undefined
    // Most recently used goes last, so the oldest is the first to go.
    this.entries.delete(key)
    this.entries.set(key, hit)
    return hit
  }

  set(code: string, persistTopLevel: boolean, result: NormalizeResult): void {
    if (code.length > MAX_CACHED_CODE_CHARS) return
    this.entries.set(keyOf(code, persistTopLevel), deepFreeze(result))
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string)
  }
}

function keyOf(code: string, persistTopLevel: boolean): string {
  return (persistTopLevel ? 'p' : 'r') + code
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const inner of Object.values(value)) deepFreeze(inner)
  }
  return value
}
