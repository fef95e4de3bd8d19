import type { NormalizeResult } from './types.js'

/** Programs this short are kept: a host that runs the same code again skips the parse (~0.5 ms cold). */
const MAX_CACHED_CODE_CHARS = 16 * 1024
/** Most recently used entries kept; at most ~4 MB of text with the longest programs. */
const MAX_ENTRIES = 64

/**
 * Normalization is a pure function of the code and the options (`variant` names them), so its results are kept for
 * recent programs (plugin hosts and agents often run the same code many times). Results are
 * frozen, so no caller can change what the next run gets.
 */
export class NormalizeCache {
  private readonly entries = new Map<string, NormalizeResult>()

  get(code: string, variant: string): NormalizeResult | undefined {
    if (code.length > MAX_CACHED_CODE_CHARS) return undefined
    const key = variant + '\n' + code
    const hit = this.entries.get(key)
    if (hit === undefined) return undefined
    // Most recently used goes last, so the oldest is the first to go.
    this.entries.delete(key)
    this.entries.set(key, hit)
    return hit
  }

  set(code: string, variant: string, result: NormalizeResult): void {
    if (code.length > MAX_CACHED_CODE_CHARS) return
    this.entries.set(variant + '\n' + code, deepFreeze(result))
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string)
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const inner of Object.values(value)) deepFreeze(inner)
  }
  return value
}
