import type { Primordials } from '@cordon/core/backend'

/**
 * Runs in every fresh context before the guest runtime and any guest code, with the buffer guard
 * (as source text, see buffer-guard-source.ts), so it must be self-contained.
 *
 * Why: bellard's QuickJS 2025-09-13 allocates a growable SharedArrayBuffer
 * (`new SharedArrayBuffer(length, { maxByteLength })`) at its initial length when no SAB
 * allocator hook is installed — quickjs-emscripten installs none — yet `grow()` then moves its
 * length up to `maxByteLength`: the buffer reaches into WASM memory it does not own (reading the
 * engine's heap, corrupting it by writing). quickjs-ng allocates `maxByteLength` up front.
 * The constructor is wrapped (as a Proxy: name, length and `[native code]` source stay) so that
 * a growable one is refused with a TypeError; `maxByteLength` is read once, here, and the
 * original is given the length alone, so no SharedArrayBuffer this engine makes can grow.
 * Without a growable buffer, `grow()` throws as the spec says for a fixed-length one.
 * What changes for the guest: growable SharedArrayBuffers (ES2024) are refused; fixed-length
 * ones, and resizable (non-shared) ArrayBuffers, are as before.
 */
export function refuseGrowableSharedBuffers(p: Primordials): void {
  'use strict'
  const G = globalThis as unknown as Record<PropertyKey, unknown>
  const { ProxyCtor, construct, defineProperty, getOwnPropertyDescriptor: getOwn, setPrototypeOf, dataValue } = p
  const Original = dataValue(getOwn(G, 'SharedArrayBuffer'))
  if (typeof Original !== 'function') return
  const TypeErrorCtor = TypeError
  const traps: ProxyHandler<Function> = {
    construct(target, args, newTarget) {
      const options = args[1]
      if ((typeof options === 'object' && options !== null) || typeof options === 'function') {
        if ((options as { maxByteLength?: unknown }).maxByteLength !== undefined) {
          throw new TypeErrorCtor('growable SharedArrayBuffers (maxByteLength) are not supported on QuickJS')
        }
      }
      return construct(target, [args[0]], newTarget === wrapped ? target : newTarget) as object
    },
  }
  // A Proxy looks a missing trap up on its handler: without a prototype, the guest's
  // Object.prototype cannot supply one.
  const wrapped: Function = new ProxyCtor(Original, setPrototypeOf(traps, null) as ProxyHandler<Function>)
  defineProperty(G, 'SharedArrayBuffer', p.dataDescriptor(wrapped, false))
  defineProperty((Original as { prototype: object }).prototype, 'constructor', p.dataDescriptor(wrapped, false))
}
