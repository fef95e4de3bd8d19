import type { Primordials } from '@cordon/core/backend'

/**
 * Runs in every fresh isolate before the guest runtime and before any guest code. It is
 * shipped as source text (see boot-source.ts), so it must be self-contained.
 *
 * Why it exists — three places where isolated-vm's memory limit is not the whole story:
 * - `WebAssembly.Memory` is allocated outside isolated-vm's accounting (a 16 MB isolate
 *   could commit gigabytes), so `WebAssembly` is removed.
 * - Resizable `ArrayBuffer`s and growable `SharedArrayBuffer`s commit memory on
 *   `resize`/`grow` without asking the isolate's allocator, so they are refused.
 * - A refused ArrayBuffer allocation is a catchable `RangeError`, not the end of the run;
 *   `reportAllocationFailure` tells the host, which ends the run with MEMORY_LIMIT even if
 *   the guest catches the error.
 * The wrappers are Proxies, so the functions keep their names, lengths, prototypes and
 * native-looking source. The host callback stays in this closure.
 */
export function hardenGuestRealm(p: Primordials, reportAllocationFailure: () => void): void {
  'use strict'
  const G = globalThis as Record<string, unknown>
  const {
    ProxyCtor,
    construct,
    apply,
    defineProperty,
    getOwnPropertyDescriptor,
    getPrototypeOf,
    setPrototypeOf,
    TypeErrorCtor,
    rangeErrorPrototype,
  } = p
  const ALLOCATION_FAILED = 'Array buffer allocation failed'

  function watch(error: unknown): unknown {
    try {
      if (typeof error === 'object' && error !== null && getPrototypeOf(error) === rangeErrorPrototype) {
        // The descriptor's own fields only: an accessor's missing `value` must not reach Object.prototype.
        if (p.dataValue(getOwnPropertyDescriptor(error, 'message')) === ALLOCATION_FAILED) reportAllocationFailure()
      }
    } catch {
      // A guest-made proxy threw from a trap: it is not an engine allocation failure.
    }
    return error
  }

  // Proxy handlers have no prototype: a Proxy looks its traps up on its handler, and a trap the
  // guest put on Object.prototype would otherwise be handed the unwrapped constructor.
  function withoutPrototype(handler: ProxyHandler<Function>): ProxyHandler<Function> {
    return setPrototypeOf(handler, null) as ProxyHandler<Function>
  }

  function refuseResizable(kind: string) {
    return function (args: unknown[]): unknown[] {
      const options = args[1]
      if (typeof options === 'object' && options !== null && (options as { maxByteLength?: unknown }).maxByteLength !== undefined) {
        throw new TypeErrorCtor(kind + ' with maxByteLength is not available in this sandbox (it would bypass the memory limit)')
      }
      return [args[0]]
    }
  }

  function guardConstructor(name: string, sanitize?: (args: unknown[]) => unknown[]): void {
    const target = G[name] as (Function & { prototype: object }) | undefined
    if (typeof target !== 'function') return
    const guarded: Function = new ProxyCtor(
      target,
      withoutPrototype({
        construct(t: Function, args: unknown[], newTarget: Function) {
          const list = sanitize === undefined ? args : sanitize(args)
          try {
            return construct(t, list, newTarget === guarded ? t : newTarget) as object
          } catch (error) {
            throw watch(error)
          }
        },
      }),
    )
    defineProperty(target.prototype, 'constructor', { value: guarded, writable: true, configurable: true, enumerable: false })
    defineProperty(G, name, { value: guarded, writable: true, configurable: true, enumerable: false })
  }

  function guardMethod(owner: object | undefined, key: string, refuse?: string): void {
    if (owner === undefined) return
    const descriptor = getOwnPropertyDescriptor(owner, key)
    if (descriptor === undefined || typeof descriptor.value !== 'function') return
    descriptor.value = new ProxyCtor(
      descriptor.value as Function,
      withoutPrototype({
        apply(t: Function, thisArg: unknown, args: unknown[]) {
          if (refuse !== undefined) throw new TypeErrorCtor(refuse)
          try {
            return apply(t, thisArg, args)
          } catch (error) {
            throw watch(error)
          }
        },
      }),
    )
    defineProperty(owner, key, descriptor)
  }

  delete G.WebAssembly

  const typedArrayNames = [
    'Int8Array',
    'Uint8Array',
    'Uint8ClampedArray',
    'Int16Array',
    'Uint16Array',
    'Int32Array',
    'Uint32Array',
    'Float16Array',
    'Float32Array',
    'Float64Array',
    'BigInt64Array',
    'BigUint64Array',
  ]
  const TypedArray = getPrototypeOf(Uint8Array) as Function & { prototype: object }
  for (const key of ['from', 'of']) guardMethod(TypedArray, key)
  for (const key of ['slice', 'map', 'filter', 'toReversed', 'toSorted', 'with']) guardMethod(TypedArray.prototype, key)
  for (const name of typedArrayNames) guardConstructor(name)

  const bufferPrototype = ArrayBuffer.prototype
  for (const key of ['slice', 'transfer', 'transferToFixedLength']) guardMethod(bufferPrototype, key)
  guardMethod(bufferPrototype, 'resize', 'ArrayBuffer.prototype.resize is not available in this sandbox')
  guardConstructor('ArrayBuffer', refuseResizable('ArrayBuffer'))

  const shared = G.SharedArrayBuffer as { prototype: object } | undefined
  if (shared !== undefined) {
    guardMethod(shared.prototype, 'slice')
    guardMethod(shared.prototype, 'grow', 'SharedArrayBuffer.prototype.grow is not available in this sandbox')
    guardConstructor('SharedArrayBuffer', refuseResizable('SharedArrayBuffer'))
  }
}
