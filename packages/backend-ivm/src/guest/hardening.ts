import type { Primordials } from '@cordon/core/backend'

/**
 * Runs in every fresh isolate before the guest runtime and before any guest code. It is
 * shipped as source text (see boot-source.ts), so it must be self-contained.
 *
 * Why it exists — places where isolated-vm's memory limit is not the whole story:
 * - `WebAssembly.Memory` is allocated outside isolated-vm's accounting (a 16 MB isolate
 *   could commit gigabytes), so `WebAssembly` is removed.
 * - `Atomics.waitAsync` with a timeout aborts the process under isolated-vm 5 (below): removed.
 * - Resizable `ArrayBuffer`s and growable `SharedArrayBuffer`s reserve their maximum and commit
 *   pages on `resize`/`grow` without asking the isolate's allocator. Each one is charged its
 *   maximum up front: a plain ArrayBuffer of `maxByteLength` bytes (which isolated-vm does
 *   count, and which costs no resident memory until written) lives as long as the buffer does.
 * - A refused ArrayBuffer allocation is a catchable `RangeError`, not the end of the run;
 *   `reportAllocationFailure` tells the host, which ends the run with MEMORY_LIMIT even if
 *   the guest catches the error.
 * - Some built-ins grow an array inside one native call, where V8 cannot stop them: isolated-vm
 *   disposes the isolate at the limit but the call goes on, and V8 grants it more heap until
 *   it fails in a way that takes the whole isolate down (or, for `Array.prototype.fill` on a
 *   plain object, until the host runs out of memory). Those calls are refused up front when
 *   the elements they would create alone need more than `memoryMb`.
 * - V8 aborts the process outright (crbug.com/1201626, not an out-of-memory error anyone can
 *   catch) when a built-in asks for an array of 2^27 elements or more: splitting, matching or
 *   replacing in a huge string, or parsing a huge JSON array. Such calls get a RangeError.
 * The wrappers are Proxies, so the functions keep their names, lengths, prototypes and
 * native-looking source. The host callback stays in this closure.
 */
export function hardenGuestRealm(p: Primordials, reportAllocationFailure: () => void, memoryMb: number): void {
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
    list,
    own,
    dataDescriptor,
    ObjectCtor,
    dataValue,
    StringCtor,
    RangeErrorCtor,
    rangeErrorPrototype,
    typedArrayTag,
    stringIndexOf,
  } = p
  const trunc = Math.trunc
  const min = Math.min
  const max = Math.max
  const ArrayBufferCtor = ArrayBuffer
  const ballasts = new WeakMap<object, ArrayBuffer>()
  const weakMapGet = WeakMap.prototype.get
  const weakMapSet = WeakMap.prototype.set
  const iteratorSymbol = Symbol.iterator
  const splitSymbol = Symbol.split
  const ALLOCATION_FAILED = 'Array buffer allocation failed'
  /** An element of an array takes at least 8 bytes (a tagged slot or a double), so this many fill memoryMb. */
  const ELEMENT_BUDGET = (memoryMb * 1024 * 1024) / 8
  /** From 2^26 elements a builder that doubles its capacity asks V8 for 2^27, which aborts the process. */
  const MAX_STRING_PIECES = 67108864
  /** A JSON array has at most one element per two characters of its text. */
  const MAX_JSON_LENGTH = 2 * MAX_STRING_PIECES

  function watch(error: unknown): unknown {
    try {
      if (typeof error === 'object' && error !== null && getPrototypeOf(error) === rangeErrorPrototype) {
        // The descriptor's own fields only: an accessor's missing `value` must not reach Object.prototype.
        if (dataValue(getOwnPropertyDescriptor(error, 'message')) === ALLOCATION_FAILED) reportAllocationFailure()
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

  function getter(owner: object, key: PropertyKey): Function | undefined {
    const descriptor = getOwnPropertyDescriptor(owner, key)
    return descriptor === undefined ? undefined : descriptor.get
  }

  /** `args` is the engine's array for a Proxy trap: own elements only, never Array.prototype's. */
  function argument(args: unknown[], index: number): unknown {
    return own(args, index)
  }

  /** The arguments again, with `first` in place of the first: a list of ours, no prototype. */
  function withFirst(args: unknown[], first: unknown): unknown[] {
    const out = list<unknown>()
    out[0] = first
    for (let i = 1; i < args.length; i++) out[i] = own(args, i)
    return out
  }

  function integer(value: number): number {
    return value !== value ? 0 : trunc(value)
  }

  function isObject(value: unknown): value is object {
    return (typeof value === 'object' && value !== null) || typeof value === 'function'
  }

  /**
   * The `length` a built-in will read from `o`, when reading it runs no guest code: an own data
   * property holding a number. Undefined otherwise (a getter, a primitive, a typed array, whose
   * storage is already allocated): the guard then stays out of the way.
   */
  function plainLength(o: unknown): number | undefined {
    if (!isObject(o) || apply(typedArrayTag, o, []) !== undefined) return undefined
    const value = dataValue(getOwnPropertyDescriptor(o, 'length'))
    return typeof value === 'number' ? toLength(value) : undefined
  }

  /** A relative index as the Array methods compute it, when that runs no guest code (absent or a number). */
  function relativeIndex(value: unknown, length: number, absent: number): number | undefined {
    if (value === undefined) return absent
    if (typeof value !== 'number') return undefined
    const n = integer(value)
    return n < 0 ? max(length + n, 0) : min(n, length)
  }

  /**
   * Ends the run with MEMORY_LIMIT before a native call creates more elements than memoryMb holds.
   * `newArray`: the call makes a new Array of that length, which the built-in refuses itself
   * with a RangeError past 2^32 - 1, allocating nothing.
   */
  function planElements(count: number | undefined, newArray: boolean): void {
    if (count === undefined || count <= ELEMENT_BUDGET || (newArray && count > 4294967295)) return
    reportAllocationFailure()
    throw new RangeErrorCtor('Invalid array length: ' + count + ' elements do not fit in memoryMb (' + memoryMb + ' MB)')
  }

  function toIntegerOrInfinity(value: unknown): number {
    return integer(+(value as number))
  }

  function toLength(value: unknown): number {
    const n = toIntegerOrInfinity(value)
    return n <= 0 ? 0 : min(n, 9007199254740991)
  }

  /** What V8 would do if it checked: a RangeError the guest can catch, instead of a process abort. */
  function refuseHuge(what: string): never {
    throw new RangeErrorCtor(what + ' is not available in this sandbox (V8 would abort the process)')
  }

  /** ToString, once, for a value about to be handed on; undefined for a symbol (the built-in throws). */
  function toStringOnce(value: unknown): string | undefined {
    if (typeof value === 'string') return value
    if (typeof value === 'symbol') return undefined
    return StringCtor(value)
  }

  /** Replaces a method with a Proxy whose calls go through `call(original, thisArg, args)`. */
  function wrapMethod(
    owner: object | undefined,
    key: PropertyKey,
    call: (original: Function, thisArg: unknown, args: unknown[]) => unknown,
  ): void {
    if (owner === undefined) return
    const descriptor = getOwnPropertyDescriptor(owner, key)
    if (descriptor === undefined || typeof descriptor.value !== 'function') return
    descriptor.value = new ProxyCtor(
      descriptor.value as Function,
      withoutPrototype({
        apply(t: Function, thisArg: unknown, args: unknown[]) {
          return call(t, thisArg, args)
        },
      }),
    )
    defineProperty(owner, key, descriptor)
  }

  /** A method whose allocation failures end the run; `after` sees each result. */
  function guardMethod(owner: object | undefined, key: string, after?: (thisArg: unknown, result: unknown) => void): void {
    wrapMethod(owner, key, (original, thisArg, args) => {
      let result: unknown
      try {
        result = apply(original, thisArg, args)
      } catch (error) {
        throw watch(error)
      }
      if (after !== undefined) after(thisArg, result)
      return result
    })
  }

  function guardConstructor(name: string, after?: (made: object) => void): void {
    const target = G[name] as (Function & { prototype: object }) | undefined
    if (typeof target !== 'function') return
    const guarded: Function = new ProxyCtor(
      target,
      withoutPrototype({
        construct(t: Function, args: unknown[], newTarget: Function) {
          let made: object
          try {
            made = construct(t, args, newTarget === guarded ? t : newTarget) as object
          } catch (error) {
            throw watch(error)
          }
          if (after !== undefined) after(made)
          return made
        },
      }),
    )
    defineProperty(target.prototype, 'constructor', { value: guarded, writable: true, configurable: true, enumerable: false })
    defineProperty(G, name, { value: guarded, writable: true, configurable: true, enumerable: false })
  }

  delete G.WebAssembly
  // isolated-vm 5 aborts the whole process ("terminate called without an active exception")
  // when a waitAsync with a finite timeout is pending in an isolate: one line of guest code
  // could end the host. The guest sees Atomics without it, as in engines that lack it.
  const atomics = G.Atomics as Record<string, unknown> | undefined
  if (typeof atomics === 'object' && atomics !== null) delete atomics.waitAsync

  // Typed arrays: their memory comes from the isolate's allocator; only failures need watching.
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

  // Resizable and growable buffers: charged their maximum for as long as they live.
  const bufferPrototype = ArrayBuffer.prototype
  const isResizable = getter(bufferPrototype, 'resizable')
  const bufferMaximum = getter(bufferPrototype, 'maxByteLength')
  const charge = (buffer: object, maximumOf: Function) => {
    let ballast: ArrayBuffer
    try {
      ballast = new ArrayBufferCtor(apply(maximumOf, buffer, []) as number)
    } catch (error) {
      reportAllocationFailure()
      throw error
    }
    apply(weakMapSet, ballasts, [buffer, ballast])
  }
  // A transferred buffer takes over the charge (V8 may hand it the same reserved memory).
  const passCharge = (source: unknown, result: unknown) => {
    if (!isObject(source) || !isObject(result)) return
    const ballast = apply(weakMapGet, ballasts, [source]) as ArrayBuffer | undefined
    if (ballast !== undefined) apply(weakMapSet, ballasts, [result, ballast])
  }
  for (const key of ['slice', 'resize']) guardMethod(bufferPrototype, key)
  for (const key of ['transfer', 'transferToFixedLength']) guardMethod(bufferPrototype, key, passCharge)
  guardConstructor('ArrayBuffer', (made) => {
    if (isResizable !== undefined && bufferMaximum !== undefined && apply(isResizable, made, []) === true) charge(made, bufferMaximum)
  })

  const shared = G.SharedArrayBuffer as { prototype: object } | undefined
  if (shared !== undefined) {
    const isGrowable = getter(shared.prototype, 'growable')
    const sharedMaximum = getter(shared.prototype, 'maxByteLength')
    for (const key of ['slice', 'grow']) guardMethod(shared.prototype, key)
    guardConstructor('SharedArrayBuffer', (made) => {
      if (isGrowable !== undefined && sharedMaximum !== undefined && apply(isGrowable, made, []) === true) charge(made, sharedMaximum)
    })
  }

  // Array built-ins that create or fill `length` elements in one native call.
  const arrayPrototype = Array.prototype
  wrapMethod(arrayPrototype, 'fill', (original, thisArg, args) => {
    const value = argument(args, 0)
    const start = argument(args, 1)
    const end = argument(args, 2)
    const length = plainLength(thisArg)
    if (length !== undefined) {
      const from = relativeIndex(start, length, 0)
      const to = relativeIndex(end, length, length)
      if (from !== undefined && to !== undefined) {
        planElements(to - from, false)
        return apply(original, thisArg, args)
      }
    }
    if (thisArg === undefined || thisArg === null || apply(typedArrayTag, thisArg, []) !== undefined) {
      return apply(original, thisArg, args)
    }
    // A `length` getter or indices to convert: each read once, so the count is only known midway.
    // The specification's steps in JavaScript then, which V8 can interrupt at the limit.
    const o = ObjectCtor(thisArg) as Record<number, unknown>
    const len = toLength((o as { length?: unknown }).length)
    const from = relativeIndex(toIntegerOrInfinity(start), len, 0) as number
    const to = end === undefined ? len : (relativeIndex(toIntegerOrInfinity(end), len, len) as number)
    planElements(to - from, false)
    for (let k = from; k < to; k++) o[k] = value
    return o
  })
  for (const key of ['toReversed', 'toSorted', 'with']) {
    wrapMethod(arrayPrototype, key, (original, thisArg, args) => {
      planElements(plainLength(thisArg), true)
      return apply(original, thisArg, args)
    })
  }
  wrapMethod(arrayPrototype, 'toSpliced', (original, thisArg, args) => {
    const length = plainLength(thisArg)
    if (length !== undefined) {
      const start = relativeIndex(argument(args, 0), length, 0)
      const skipArgument = argument(args, 1)
      let skip: number | undefined
      if (start === undefined) skip = undefined
      else if (args.length === 0) skip = 0
      else if (args.length === 1) skip = length - start
      else if (skipArgument === undefined) skip = 0
      else if (typeof skipArgument === 'number') skip = min(max(integer(skipArgument), 0), length - start)
      if (skip !== undefined) planElements(length + max(args.length - 2, 0) - skip, true)
    }
    return apply(original, thisArg, args)
  })
  // Array.from of an array-like (no iterator anywhere on it) and no mapping function: one native loop.
  const ArrayCtor = Array
  wrapMethod(Array, 'from', (original, thisArg, args) => {
    const items = argument(args, 0)
    if (argument(args, 1) !== undefined || !isObject(items)) return apply(original, thisArg, args)
    let iterable = false
    let cursor: object | null = items
    for (let depth = 0; cursor !== null && !iterable; depth++) {
      iterable = depth > 1000 || getOwnPropertyDescriptor(cursor, iteratorSymbol) !== undefined
      cursor = iterable ? null : (getPrototypeOf(cursor) as object | null)
    }
    if (iterable) return apply(original, thisArg, args)
    const length = plainLength(items)
    if (length !== undefined || thisArg !== ArrayCtor) {
      planElements(length, true)
      return apply(original, thisArg, args)
    }
    // A `length` getter, read once: the specification's steps in JavaScript, which V8 can interrupt.
    const len = toLength((items as { length?: unknown }).length)
    planElements(len, true)
    const out = new ArrayCtor(len) as unknown[]
    for (let k = 0; k < len; k++) {
      defineProperty(out, k, dataDescriptor((items as Record<number, unknown>)[k], true))
    }
    return out
  })

  // Splitting, matching and replacing collect their pieces in one array that doubles as it grows.
  const regexpPrototype = RegExp.prototype
  for (const key of [Symbol.split, Symbol.match, Symbol.replace]) {
    wrapMethod(regexpPrototype, key, (original, thisArg, args) => {
      // The built-in checks its receiver first, then converts the string: the same order here.
      if (!isObject(thisArg)) return apply(original, thisArg, args)
      const subject = toStringOnce(argument(args, 0))
      if (subject === undefined) return apply(original, thisArg, args)
      const limit = argument(args, 1)
      const bounded = key === splitSymbol && typeof limit === 'number' && limit >>> 0 < MAX_STRING_PIECES
      if (subject.length >= MAX_STRING_PIECES && !bounded)
        refuseHuge('a RegExp split, match or replace on a string of ' + MAX_STRING_PIECES + ' characters or more')
      return apply(original, thisArg, withFirst(args, subject))
    })
  }
  // String.prototype.split with anything but a splitter object: this follows the specification's
  // steps (each conversion once, in order) so the built-in only ever sees strings and numbers.
  wrapMethod(String.prototype, 'split', (original, thisArg, args) => {
    const separator = argument(args, 0)
    const limit = argument(args, 1)
    if (thisArg === undefined || thisArg === null) return apply(original, thisArg, args)
    if (isObject(separator)) {
      const splitter = (separator as Record<symbol, unknown>)[splitSymbol]
      if (splitter !== undefined && splitter !== null) return apply(splitter as Function, separator, [thisArg, limit])
    }
    const subject = toStringOnce(thisArg)
    if (subject === undefined) return apply(original, thisArg, args)
    const lim = limit === undefined ? 4294967295 : +(limit as number) >>> 0
    const by = separator === undefined || typeof separator === 'symbol' ? separator : toStringOnce(separator)
    if (subject.length >= MAX_STRING_PIECES && lim >= MAX_STRING_PIECES && typeof by === 'string') {
      // Count the pieces (up to the bound): a long text split on a rare separator is fine.
      let pieces = 1
      if (by === '') pieces = subject.length
      else {
        let at = apply(stringIndexOf, subject, [by, 0]) as number
        while (at !== -1 && pieces < MAX_STRING_PIECES) {
          pieces++
          at = apply(stringIndexOf, subject, [by, at + by.length]) as number
        }
      }
      if (pieces >= MAX_STRING_PIECES) refuseHuge('splitting a string into ' + MAX_STRING_PIECES + ' pieces or more')
    }
    const out = list<unknown>()
    out[0] = by
    if (limit !== undefined) out[1] = lim
    return apply(original, subject, out)
  })
  wrapMethod(JSON, 'parse', (original, thisArg, args) => {
    const text = toStringOnce(argument(args, 0))
    if (text === undefined) return apply(original, thisArg, args)
    if (text.length >= MAX_JSON_LENGTH) refuseHuge('JSON.parse of a text of ' + MAX_JSON_LENGTH + ' characters or more')
    return apply(original, thisArg, withFirst(args, text))
  })
}
