import type { Primordials } from '@cordon/core/backend'
import type { createLengthFallbacks } from './length-fallbacks.js'

/**
 * Runs in every fresh context before the guest runtime and any guest code (as source text, see
 * length-guard-source.ts), so it must be self-contained and capture every primordial first.
 *
 * Why: QuickJS polls its interrupt handler only between bytecode instructions. Built-ins such
 * as `includes` or `join` walk `length` in one C loop, so `a.length = 2 ** 32 - 1; a.includes(1)`
 * would hold the host's thread for minutes past the deadline. Each such built-in is wrapped in
 * a Proxy (name, length and native-looking source stay): the original runs only when the walk
 * is provably short, i.e. `this` is a genuine Array or a string of at most `limit` elements
 * (their length is a plain value no guest code can change under the C loop); anything else
 * (huge lengths, array-likes, Proxies, getters on `length`) runs a spec-order JavaScript
 * version, which the interrupt handler stops at the deadline.
 */
export function guardHugeLengths(p: Primordials, limit: number, sortLimit: number, makeFallbacks: typeof createLengthFallbacks): void {
  'use strict'
  const G = globalThis as unknown as Record<PropertyKey, unknown>
  const {
    ProxyCtor,
    apply,
    construct,
    defineProperty,
    getOwnPropertyDescriptor: getOwn,
    getPrototypeOf,
    setPrototypeOf,
    isArray,
    arrayPrototype: ArrayProto,
    objectPrototype: ObjectProto,
    stringPrototype: StringProto,
    weakSetAdd: addTo,
    weakSetHas: hasIn,
    iteratorSymbol,
    spreadableSymbol,
    typedArrayLength: typedLengthGetter,
    arrayValues,
    dataValue,
  } = p
  const TypedArray = p.TypedArray as Function & { prototype: object; from: Function }
  const arrayIteratorProto = getPrototypeOf(apply(arrayValues, [], [])) as { next: Function }
  const arrayIteratorNext = arrayIteratorProto.next
  const stringIterator = (StringProto as unknown as Record<symbol, Function>)[iteratorSymbol] as Function
  const stringIteratorProto = getPrototypeOf(apply(stringIterator, '', [])) as { next: Function }
  const stringIteratorNext = stringIteratorProto.next

  // Proxies are the one object whose `length` or elements can run guest code under a C loop
  // yet pass Array.isArray, so every proxy the guest makes is remembered.
  const proxies = new p.WeakSetCtor() as WeakSet<object>
  const remember = <T>(value: T): T => {
    if ((typeof value === 'object' && value !== null) || typeof value === 'function') apply(addTo, proxies, [value])
    return value
  }
  // Handlers and descriptors have no prototype: a Proxy looks a missing trap up on its handler, and
  // defineProperty a missing `get`, so a guest's Object.prototype.get would otherwise be handed the
  // unwrapped built-in (and could then run it over a huge length without the guard).
  const handler = <T extends object>(traps: ProxyHandler<T>): ProxyHandler<T> => setPrototypeOf(traps, null) as ProxyHandler<T>
  const dataDescriptor = (value: unknown): PropertyDescriptor => p.dataDescriptor(value, false)
  const revocable = ProxyCtor.revocable
  defineProperty(ProxyCtor, 'revocable', {
    __proto__: null,
    value: new ProxyCtor(
      revocable,
      handler({
        apply(target, self, args) {
          const result = apply(target, self, args) as { proxy: object }
          remember(result.proxy)
          return result
        },
      }),
    ),
    writable: true,
    configurable: true,
    enumerable: false,
  } as PropertyDescriptor)
  defineProperty(
    G,
    'Proxy',
    dataDescriptor(new ProxyCtor(ProxyCtor, handler({ construct: (target, args) => remember(construct(target, args)) as object }))),
  )

  const fallbacks = makeFallbacks(p)

  /** The length of `value` when reading it runs no guest code and nothing can change it: a genuine array or a string. */
  const plainLength = (value: unknown): number | undefined => {
    if (typeof value === 'string') return value.length
    if (!isArray(value) || apply(hasIn, proxies, [value])) return undefined
    return (value as unknown[]).length
  }
  const short = (value: unknown, max: number): boolean => {
    const len = plainLength(value)
    return len !== undefined && len <= max
  }
  /** No guest getter decides whether an argument of concat is spread. */
  const noSpreadableFlag = (value: object): boolean =>
    getOwn(value, spreadableSymbol) === undefined &&
    getOwn(ArrayProto, spreadableSymbol) === undefined &&
    getOwn(ObjectProto, spreadableSymbol) === undefined
  const concatIsShort = (self: unknown, args: unknown[]): boolean => {
    let total = 0
    for (let i = -1; i < args.length; i++) {
      const value = i < 0 ? self : args[i]
      if ((typeof value !== 'object' || value === null) && typeof value !== 'function') {
        if (i < 0) return false
        total += 1
        continue
      }
      const len = plainLength(value)
      if (len === undefined || getPrototypeOf(value) !== ArrayProto || !noSpreadableFlag(value)) return false
      total += len
    }
    return total <= limit && getPrototypeOf(ArrayProto) === ObjectProto
  }
  /** Array.from iterates a genuine array or string with the built-in iterators, to at most `limit` steps. */
  const fromIsShort = (items: unknown): boolean => {
    if (typeof items === 'string') {
      const own = getOwn(StringProto, iteratorSymbol)
      const next = getOwn(stringIteratorProto, 'next')
      return items.length <= limit && dataValue(own) === stringIterator && dataValue(next) === stringIteratorNext
    }
    if (!short(items, limit) || getOwn(items, iteratorSymbol) !== undefined) return false
    const own = getOwn(ArrayProto, iteratorSymbol)
    const next = getOwn(arrayIteratorProto, 'next')
    return getPrototypeOf(items) === ArrayProto && dataValue(own) === arrayValues && dataValue(next) === arrayIteratorNext
  }

  type Native = (self: unknown, args: unknown[]) => boolean
  function guard(owner: object, key: string, native: Native, fallback: (self: unknown, args: unknown[]) => unknown): void {
    const original = dataValue(getOwn(owner, key))
    if (typeof original !== 'function') return
    const wrapped = new ProxyCtor(
      original,
      handler({
        apply: (target, self, args) =>
          self === null || self === undefined || native(self, args) ? apply(target, self, args) : fallback(self, args),
      }),
    )
    defineProperty(owner, key, dataDescriptor(wrapped))
  }

  const thisIsShort: Native = (self) => short(self, limit)
  // A C comparator (the default one, or e.g. Math.max) never polls: n·log n calls count too.
  const sortIsShort: Native = (self, args) => short(self, sortLimit) && (args[0] === undefined || typeof args[0] === 'function')
  const walking = [
    'includes',
    'indexOf',
    'lastIndexOf',
    'join',
    'toLocaleString',
    'reverse',
    'fill',
    'copyWithin',
    'slice',
    'splice',
    'forEach',
    'map',
    'filter',
    'some',
    'every',
    'reduce',
    'reduceRight',
    'shift',
    'unshift',
    'toReversed',
    'toSpliced',
    'with',
  ]
  for (const key of walking) guard(ArrayProto, key, thisIsShort, fallbacks[key] as Native)
  for (const key of ['sort', 'toSorted']) guard(ArrayProto, key, sortIsShort, fallbacks[key] as Native)
  guard(ArrayProto, 'concat', concatIsShort, fallbacks.concat as Native)
  // flat and flatMap walk nested arrays too, whose lengths are only known during the walk.
  for (const key of ['flat', 'flatMap']) guard(ArrayProto, key, () => false, fallbacks[key] as Native)
  guard(Array, 'from', (_, args) => fromIsShort(args[0]), fallbacks.from as Native)
  guard(TypedArray, 'from', (_, args) => fromIsShort(args[0]), fallbacks.typedFrom as Native)
  const typedIsShort: Native = (self) => {
    try {
      return (apply(typedLengthGetter, self, []) as number) <= limit
    } catch {
      return true // not a typed array: the original throws its own TypeError
    }
  }
  guard(TypedArray.prototype, 'join', typedIsShort, fallbacks.typedJoin as Native)
  guard(TypedArray.prototype, 'toLocaleString', typedIsShort, fallbacks.typedToLocaleString as Native)
}
