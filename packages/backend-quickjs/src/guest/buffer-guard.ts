import type { Primordials } from '@cordon/core/backend'

/**
 * Runs in every fresh context before the length guard, the guest runtime and any guest code (as
 * source text, see buffer-guard-source.ts), so it must be self-contained and capture every
 * primordial first.
 *
 * Why: QuickJS 2025-09-13 (bellard's, the default build) reads a typed array's length or its
 * buffer's size, then runs guest code, then trusts what it read. Where that guest code shrinks
 * a resizable buffer or detaches one with `transfer()`, the engine reads and writes past the
 * buffer's end (bellard/quickjs #477, #478, #492; fixed upstream in 2026-03). Three built-ins
 * are reached that way; each is wrapped (as a Proxy, so name, length and `[native code]` source
 * stay) so that the guest code runs first and the original then sees only values it cannot
 * change:
 * - the TypedArray constructors, called with a newTarget other than themselves (Reflect.construct,
 *   a subclass): `newTarget.prototype` is read first, as the spec orders it, then the original is
 *   constructed with its own newTarget and given that prototype;
 * - `%TypedArray%.prototype.with`: the index and the value are converted first (the value by
 *   storing it into a one-element array of the same type, which converts exactly as `with` does);
 * - `%TypedArray%.prototype.sort` with a comparator: the elements are copied to a private array,
 *   sorted there and written back (writes past a shrunk end are ignored), as the spec's
 *   SortIndexedProperties does; the default comparator runs no guest code and is left alone.
 * What changes for the guest: nothing a test262 test of these built-ins checks, except that
 * `with` whose own arguments shrink the buffer returns a copy of the new length (as quickjs-ng
 * does) instead of zero-filling to the old one.
 */
export function guardShrinkingBuffers(p: Primordials): void {
  'use strict'
  const G = globalThis as unknown as Record<PropertyKey, unknown>
  const { ProxyCtor, apply, construct, defineProperty, getOwnPropertyDescriptor: getOwn, setPrototypeOf, dataValue, arraySort, list } = p
  const lengthOf = p.typedArrayLength
  const tagOf = p.typedArrayTag
  const TypedArrayProto = p.TypedArray.prototype as Record<string, unknown>
  // A Proxy looks a missing trap up on its handler: without a prototype, the guest's
  // Object.prototype cannot supply one.
  const handler = <T extends object>(traps: ProxyHandler<T>): ProxyHandler<T> => setPrototypeOf(traps, null) as ProxyHandler<T>
  const hidden = (value: unknown): PropertyDescriptor => p.dataDescriptor(value, false)

  /** The original constructors by name, for `with`: the guest may replace the globals. */
  const byName = p.create(null) as Record<string, new (length: number) => unknown>
  const names = [
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
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string
    const original = dataValue(getOwn(G, name))
    if (typeof original !== 'function') continue
    const Ctor = original as new (...args: unknown[]) => object
    byName[name] = Ctor
    const proto = (Ctor as unknown as { prototype: object }).prototype
    const wrapped: Function = new ProxyCtor(
      Ctor,
      handler({
        construct(target, args, newTarget) {
          if (newTarget === wrapped || newTarget === target) return construct(target, args) as object
          // GetPrototypeFromConstructor, the spec's first step: the guest's getter runs here, before
          // the original looks at its buffer.
          const chosen = (newTarget as { prototype?: unknown }).prototype
          const made = construct(target, args) as object
          setPrototypeOf(made, (typeof chosen === 'object' && chosen !== null) || typeof chosen === 'function' ? chosen : proto)
          return made
        },
      }),
    )
    defineProperty(G, name, hidden(wrapped))
    defineProperty(proto, 'constructor', hidden(wrapped))
  }

  const originalWith = dataValue(getOwn(TypedArrayProto, 'with'))
  if (typeof originalWith === 'function') {
    defineProperty(
      TypedArrayProto,
      'with',
      hidden(
        new ProxyCtor(
          originalWith,
          handler({
            apply(target, self, args) {
              // Not a typed array: TypeError, before anything is converted (as the original does).
              const type = byName[apply(tagOf, self, []) as string]
              if (type === undefined) return apply(target, self, args)
              const index = +(args[0] as number)
              // A fresh one-element array of this type converts the value as `with` would
              // (ToNumber or ToBigInt, the guest's valueOf included) and stores it in the same form.
              const one = new type(1) as unknown[]
              one[0] = args[1]
              return apply(target, self, [index, one[0]])
            },
          }),
        ),
      ),
    )
  }

  const originalSort = dataValue(getOwn(TypedArrayProto, 'sort'))
  if (typeof originalSort === 'function') {
    defineProperty(
      TypedArrayProto,
      'sort',
      hidden(
        new ProxyCtor(
          originalSort,
          handler({
            apply(target, self, args) {
              const compare = args[0]
              if (typeof compare !== 'function') return apply(target, self, args)
              const length = apply(lengthOf, self, []) as number
              // Empty, detached or out of bounds: nothing to compare, and the original throws what it must.
              if (length === 0) return apply(target, self, args)
              const view = self as unknown[]
              const items = list<unknown>()
              for (let k = 0; k < length; k++) items[k] = view[k]
              apply(arraySort, items, [compare])
              for (let k = 0; k < length; k++) view[k] = items[k]
              return self
            },
          }),
        ),
      ),
    )
  }
}
