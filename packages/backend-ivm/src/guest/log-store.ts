/**
 * Runs in every fresh isolate, before any guest code; shipped as source text (see
 * boot-source.ts), so self-contained. Makes the guest runtime's `storeLog`: it writes each packed
 * console entry into memory shared with the host (a SharedArrayBuffer), where the host reads it
 * even after it stopped a guest that never yields, or lost the isolate to its memory limit.
 *
 * Layout: an Int32 at 0, the end of what was written (in UTF-16 code units), published with
 * Atomics.store after the units themselves; the units from byte 8 on. The host resets the end
 * to 0 only while the guest waits in a synchronous callback (see LogShareReader).
 */
export function makeLogStore(share: SharedArrayBuffer): (entry: string) => boolean {
  'use strict'
  const head = new Int32Array(share, 0, 1)
  const units = new Uint16Array(share, 8)
  const capacity = units.length
  const load = Atomics.load
  const store = Atomics.store
  // Captured now: the guest may replace String.prototype.charCodeAt later.
  const charCodeAt = Function.prototype.call.bind(String.prototype.charCodeAt) as (text: string, index: number) => number
  return function storeLog(entry: string): boolean {
    const from = load(head, 0)
    const length = entry.length
    if (from + length > capacity) return false
    for (let i = 0; i < length; i++) units[from + i] = charCodeAt(entry, i)
    store(head, 0, from + length)
    return true
  }
}
