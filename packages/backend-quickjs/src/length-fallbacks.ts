/**
 * Spec-order JavaScript versions of the built-ins that QuickJS runs as one C loop over a
 * length (see length-guard.ts). Being bytecode, they are stopped by the interrupt handler at
 * the deadline. Shipped as source text inside guardHugeLengths, so it must be self-contained:
 * it only uses the primordials it is given, never a global a guest could have replaced.
 */
export interface FallbackPrimordials {
  apply: typeof Reflect.apply
  construct: typeof Reflect.construct
  defineProperty: typeof Object.defineProperty
  isArray: typeof Array.isArray
  ArrayCtor: ArrayConstructor
  TypeErrorCtor: TypeErrorConstructor
  RangeErrorCtor: RangeErrorConstructor
  speciesSymbol: symbol
  iteratorSymbol: symbol
  spreadableSymbol: symbol
  ObjectCtor: ObjectConstructor
  StringCtor: StringConstructor
  floor: (x: number) => number
  /** The original Array.prototype.sort, only ever applied to a dense array of our own. */
  nativeSort: Function
  /** The length of a typed array; throws a TypeError for anything else. */
  typedArrayLength: (value: unknown) => number
}

type Fallback = (self: unknown, args: unknown[]) => unknown
type AnyObject = Record<PropertyKey, unknown>

export function createLengthFallbacks(p: FallbackPrimordials): Record<string, Fallback> {
  'use strict'
  const { apply, construct, defineProperty, isArray, ArrayCtor, TypeErrorCtor, RangeErrorCtor, ObjectCtor, StringCtor, floor } = p
  const MAX_SAFE = 9007199254740991
  const min = (a: number, b: number): number => (a < b ? a : b)
  const max = (a: number, b: number): number => (a > b ? a : b)

  const toObject = (value: unknown): AnyObject => {
    if (value === null || value === undefined) throw new TypeErrorCtor('cannot convert to object')
    return ObjectCtor(value) as AnyObject
  }
  const toInt = (value: unknown): number => {
    const n = +(value as number)
    if (n !== n || n === 0) return 0
    if (n === Infinity || n === -Infinity) return n
    return n < 0 ? -floor(-n) : floor(n)
  }
  const lengthOf = (o: AnyObject): number => {
    const n = toInt(o.length)
    return n <= 0 ? 0 : n > MAX_SAFE ? MAX_SAFE : n
  }
  /** A relative index (start, end, fromIndex) clamped to [0, len]. */
  const relative = (value: unknown, len: number, fallback: number): number => {
    if (value === undefined) return fallback
    const n = toInt(value)
    return n < 0 ? (len + n < 0 ? 0 : len + n) : n > len ? len : n
  }
  const isCallable = (value: unknown): value is Function => typeof value === 'function'
  const callback = (value: unknown): Function => {
    if (!isCallable(value)) throw new TypeErrorCtor('not a function')
    return value
  }
  const createData = (target: object, key: number, value: unknown): void => {
    // No prototype: a guest's Object.prototype.get must not turn this into an accessor.
    defineProperty(target, key, { __proto__: null, value, writable: true, enumerable: true, configurable: true } as PropertyDescriptor)
  }
  const isConstructor = (value: unknown): boolean => {
    if (!isCallable(value)) return false
    try {
      construct(StringCtor, [], value)
      return true
    } catch {
      return false
    }
  }
  const arrayCreate = (len: number): unknown[] => {
    if (len > 4294967295) throw new RangeErrorCtor('invalid array length')
    return new ArrayCtor(len)
  }
  const speciesCreate = (o: AnyObject, len: number): AnyObject => {
    if (!isArray(o)) return arrayCreate(len) as unknown as AnyObject
    let C = o.constructor as unknown
    if ((typeof C === 'object' && C !== null) || isCallable(C)) {
      C = (C as AnyObject)[p.speciesSymbol]
      if (C === null) C = undefined
    }
    if (C === undefined || C === ArrayCtor) return arrayCreate(len) as unknown as AnyObject
    if (!isConstructor(C)) throw new TypeErrorCtor('not a constructor')
    return construct(C as Function, [len]) as AnyObject
  }
  const setLength = (o: AnyObject, len: number): void => {
    o.length = len
  }
  // Not a template literal: QuickJS compiles those to String.prototype.concat calls, which the guest may replace.
  const toStr = (value: unknown): string => {
    if (typeof value === 'symbol') throw new TypeErrorCtor('Cannot convert a Symbol value to a string')
    return StringCtor(value)
  }

  function join(o: AnyObject, len: number, separator: unknown): string {
    const sep = separator === undefined ? ',' : toStr(separator)
    let r = ''
    for (let k = 0; k < len; k++) {
      if (k > 0) r += sep
      const element = o[k]
      if (element !== undefined && element !== null) r += toStr(element)
    }
    return r
  }
  function toLocale(o: AnyObject, len: number): string {
    let r = ''
    for (let k = 0; k < len; k++) {
      if (k > 0) r += ','
      const element = o[k]
      if (element !== undefined && element !== null) {
        const method = toObject(element).toLocaleString
        r += toStr(apply(callback(method), element, []))
      }
    }
    return r
  }
  /** forEach, map, filter, some, every: one walk, `kind` says what to keep. */
  function iterate(kind: 'forEach' | 'map' | 'filter' | 'some' | 'every', self: unknown, args: unknown[]): unknown {
    const o = toObject(self)
    const len = lengthOf(o)
    const fn = callback(args[0])
    const thisArg = args[1]
    const out = kind === 'map' ? speciesCreate(o, len) : kind === 'filter' ? speciesCreate(o, 0) : undefined
    let to = 0
    for (let k = 0; k < len; k++) {
      if (!(k in o)) continue
      const value = o[k]
      const result = apply(fn, thisArg, [value, k, o])
      if (kind === 'map') createData(out as object, k, result)
      else if (kind === 'filter' && result) createData(out as object, to++, value)
      else if (kind === 'some' && result) return true
      else if (kind === 'every' && !result) return false
    }
    return kind === 'some' ? false : kind === 'every' ? true : out
  }
  function reduce(right: boolean, self: unknown, args: unknown[]): unknown {
    const o = toObject(self)
    const len = lengthOf(o)
    const fn = callback(args[0])
    const step = right ? -1 : 1
    let k = right ? len - 1 : 0
    let acc: unknown
    if (args.length >= 2) acc = args[1]
    else {
      for (;;) {
        if (right ? k < 0 : k >= len) throw new TypeErrorCtor('empty array')
        const present = k in o
        if (present) acc = o[k]
        k += step
        if (present) break
      }
    }
    for (; right ? k >= 0 : k < len; k += step) if (k in o) acc = apply(fn, undefined, [acc, o[k], k, o])
    return acc
  }
  function flatten(
    target: AnyObject,
    source: AnyObject,
    sourceLen: number,
    start: number,
    depth: number,
    mapper?: Function,
    thisArg?: unknown,
  ): number {
    let to = start
    for (let k = 0; k < sourceLen; k++) {
      if (!(k in source)) continue
      let element = source[k]
      if (mapper !== undefined) element = apply(mapper, thisArg, [element, k, source])
      if (depth > 0 && isArray(element)) {
        to = flatten(target, element as unknown as AnyObject, lengthOf(element as unknown as AnyObject), to, depth - 1)
      } else {
        if (to >= MAX_SAFE) throw new TypeErrorCtor('array too long')
        createData(target, to++, element)
      }
    }
    return to
  }
  /**
   * Sorts a dense list of our own with the original sort, through a JavaScript comparator: every
   * comparison is then a bytecode call, which polls the interrupt handler (a C comparator, even
   * the default one, would not). The original sort puts undefined last without comparing it.
   */
  function sortList(items: unknown[], comparefn: unknown): unknown[] {
    const compare =
      comparefn !== undefined
        ? (x: unknown, y: unknown): unknown => apply(comparefn as Function, undefined, [x, y])
        : (x: unknown, y: unknown): number => {
            const a = toStr(x)
            const b = toStr(y)
            return a < b ? -1 : a > b ? 1 : 0
          }
    return apply(p.nativeSort, items, [compare]) as unknown[]
  }
  const checkComparator = (value: unknown): void => {
    if (value !== undefined && !isCallable(value)) throw new TypeErrorCtor('invalid comparator')
  }

  return {
    includes(self, args) {
      const o = toObject(self)
      const len = lengthOf(o)
      if (len === 0) return false
      const search = args[0]
      for (let k = relative(args[1], len, 0); k < len; k++) {
        const element = o[k]
        if (element === search || (search !== search && element !== element)) return true
      }
      return false
    },
    indexOf(self, args) {
      const o = toObject(self)
      const len = lengthOf(o)
      if (len === 0) return -1
      for (let k = relative(args[1], len, 0); k < len; k++) if (k in o && o[k] === args[0]) return k
      return -1
    },
    lastIndexOf(self, args) {
      const o = toObject(self)
      const len = lengthOf(o)
      if (len === 0) return -1
      const n = args.length > 1 ? toInt(args[1]) : len - 1
      for (let k = n >= 0 ? min(n, len - 1) : len + n; k >= 0; k--) if (k in o && o[k] === args[0]) return k
      return -1
    },
    join(self, args) {
      const o = toObject(self)
      return join(o, lengthOf(o), args[0])
    },
    toLocaleString(self: unknown) {
      const o = toObject(self)
      return toLocale(o, lengthOf(o))
    },
    reverse(self: unknown) {
      const o = toObject(self)
      const len = lengthOf(o)
      for (let lower = 0, upper = len - 1; lower < upper; lower++, upper--) {
        const lowerExists = lower in o
        const lowerValue = lowerExists ? o[lower] : undefined
        const upperExists = upper in o
        const upperValue = upperExists ? o[upper] : undefined
        if (upperExists) o[lower] = upperValue
        else if (lowerExists) delete o[lower]
        if (lowerExists) o[upper] = lowerValue
        else if (upperExists) delete o[upper]
      }
      return o
    },
    fill(self, args) {
      const o = toObject(self)
      const len = lengthOf(o)
      const end = relative(args[2], len, len)
      for (let k = relative(args[1], len, 0); k < end; k++) o[k] = args[0]
      return o
    },
    copyWithin(self, args) {
      const o = toObject(self)
      const len = lengthOf(o)
      let to = relative(args[0], len, 0)
      let from = relative(args[1], len, 0)
      const end = relative(args[2], len, len)
      let count = min(end - from, len - to)
      let step = 1
      if (from < to && to < from + count) {
        step = -1
        from += count - 1
        to += count - 1
      }
      for (; count > 0; count--, from += step, to += step) {
        if (from in o) o[to] = o[from]
        else delete o[to]
      }
      return o
    },
    forEach: (self, args) => iterate('forEach', self, args),
    map: (self, args) => iterate('map', self, args),
    filter: (self, args) => iterate('filter', self, args),
    some: (self, args) => iterate('some', self, args),
    every: (self, args) => iterate('every', self, args),
    reduce: (self, args) => reduce(false, self, args),
    reduceRight: (self, args) => reduce(true, self, args),
    slice(self, args) {
      const o = toObject(self)
      const len = lengthOf(o)
      const start = relative(args[0], len, 0)
      const end = relative(args[1], len, len)
      const a = speciesCreate(o, max(end - start, 0))
      let n = 0
      for (let k = start; k < end; k++, n++) if (k in o) createData(a, n, o[k])
      setLength(a, n)
      return a
    },
    splice(self, args) {
      const o = toObject(self)
      const len = lengthOf(o)
      const start = relative(args[0], len, 0)
      const deleteCount = args.length === 0 ? 0 : args.length === 1 ? len - start : min(max(toInt(args[1]), 0), len - start)
      const items = args.length > 2 ? args.length - 2 : 0
      if (len + items - deleteCount > MAX_SAFE) throw new TypeErrorCtor('array too long')
      const a = speciesCreate(o, deleteCount)
      for (let k = 0; k < deleteCount; k++) if (start + k in o) createData(a, k, o[start + k])
      setLength(a, deleteCount)
      if (items < deleteCount) {
        for (let k = start; k < len - deleteCount; k++) {
          if (k + deleteCount in o) o[k + items] = o[k + deleteCount]
          else delete o[k + items]
        }
        for (let k = len; k > len - deleteCount + items; k--) delete o[k - 1]
      } else if (items > deleteCount) {
        for (let k = len - deleteCount; k > start; k--) {
          if (k + deleteCount - 1 in o) o[k + items - 1] = o[k + deleteCount - 1]
          else delete o[k + items - 1]
        }
      }
      for (let k = 0; k < items; k++) o[start + k] = args[k + 2]
      setLength(o, len - deleteCount + items)
      return a
    },
    shift(self: unknown) {
      const o = toObject(self)
      const len = lengthOf(o)
      if (len === 0) {
        setLength(o, 0)
        return undefined
      }
      const first = o[0]
      for (let k = 1; k < len; k++) {
        if (k in o) o[k - 1] = o[k]
        else delete o[k - 1]
      }
      delete o[len - 1]
      setLength(o, len - 1)
      return first
    },
    unshift(self, args) {
      const o = toObject(self)
      const len = lengthOf(o)
      const count = args.length
      if (count > 0) {
        if (len + count > MAX_SAFE) throw new TypeErrorCtor('array too long')
        for (let k = len; k > 0; k--) {
          if (k - 1 in o) o[k + count - 1] = o[k - 1]
          else delete o[k + count - 1]
        }
        for (let j = 0; j < count; j++) o[j] = args[j]
      }
      setLength(o, len + count)
      return len + count
    },
    concat(self, args) {
      const o = toObject(self)
      const a = speciesCreate(o, 0)
      let n = 0
      for (let i = -1; i < args.length; i++) {
        const e = i < 0 ? o : args[i]
        let spreadable = false
        if (typeof e === 'object' ? e !== null : typeof e === 'function') {
          const flag = (e as AnyObject)[p.spreadableSymbol]
          spreadable = flag !== undefined ? !!flag : isArray(e)
        }
        if (!spreadable) {
          if (n >= MAX_SAFE) throw new TypeErrorCtor('array too long')
          createData(a, n++, e)
          continue
        }
        const len = lengthOf(e as AnyObject)
        if (n + len > MAX_SAFE) throw new TypeErrorCtor('array too long')
        for (let k = 0; k < len; k++, n++) if (k in (e as AnyObject)) createData(a, n, (e as AnyObject)[k])
      }
      setLength(a, n)
      return a
    },
    flat(self, args) {
      const o = toObject(self)
      const len = lengthOf(o)
      let depth = args[0] === undefined ? 1 : toInt(args[0])
      if (depth < 0) depth = 0
      const a = speciesCreate(o, 0)
      flatten(a, o, len, 0, depth)
      return a
    },
    flatMap(self, args) {
      const o = toObject(self)
      const len = lengthOf(o)
      const fn = callback(args[0])
      const a = speciesCreate(o, 0)
      flatten(a, o, len, 0, 1, fn, args[1])
      return a
    },
    sort(self, args) {
      checkComparator(args[0])
      const o = toObject(self)
      const len = lengthOf(o)
      const items: unknown[] = []
      for (let k = 0; k < len; k++) if (k in o) createData(items, items.length, o[k])
      const sorted = sortList(items, args[0])
      let k = 0
      for (; k < sorted.length; k++) o[k] = sorted[k]
      for (; k < len; k++) delete o[k]
      return o
    },
    toSorted(self, args) {
      checkComparator(args[0])
      const o = toObject(self)
      const len = lengthOf(o)
      if (len > 4294967295) throw new RangeErrorCtor('invalid array length')
      const items: unknown[] = []
      for (let k = 0; k < len; k++) createData(items, k, o[k])
      return sortList(items, args[0])
    },
    toReversed(self: unknown) {
      const o = toObject(self)
      const len = lengthOf(o)
      const a = arrayCreate(len)
      for (let k = 0; k < len; k++) createData(a, k, o[len - 1 - k])
      return a
    },
    toSpliced(self, args) {
      const o = toObject(self)
      const len = lengthOf(o)
      const start = relative(args[0], len, 0)
      const items = args.length > 2 ? args.length - 2 : 0
      const skip = args.length === 0 ? 0 : args.length === 1 ? len - start : min(max(toInt(args[1]), 0), len - start)
      const newLen = len + items - skip
      if (newLen > MAX_SAFE) throw new TypeErrorCtor('array too long')
      const a = arrayCreate(newLen)
      let i = 0
      for (; i < start; i++) createData(a, i, o[i])
      for (let j = 0; j < items; j++) createData(a, i++, args[j + 2])
      for (let r = start + skip; i < newLen; i++, r++) createData(a, i, o[r])
      return a
    },
    with(self, args) {
      const o = toObject(self)
      const len = lengthOf(o)
      const rel = toInt(args[0])
      const index = rel >= 0 ? rel : len + rel
      if (index >= len || index < 0) throw new RangeErrorCtor('invalid array index')
      const a = arrayCreate(len)
      for (let k = 0; k < len; k++) createData(a, k, k === index ? args[1] : o[k])
      return a
    },
    typedJoin(self, args) {
      const len = p.typedArrayLength(self)
      return join(self as AnyObject, len, args[0])
    },
    typedToLocaleString(self: unknown) {
      return toLocale(self as AnyObject, p.typedArrayLength(self))
    },
    from(self, args) {
      const items = args[0]
      const mapfn = args[1]
      const thisArg = args[2]
      if (mapfn !== undefined) callback(mapfn)
      const mapped = (value: unknown, k: number): unknown => (mapfn === undefined ? value : apply(mapfn as Function, thisArg, [value, k]))
      const usingIterator = items === null || items === undefined ? undefined : toObject(items)[p.iteratorSymbol]
      if (usingIterator !== undefined && usingIterator !== null) {
        const a = (isConstructor(self) ? construct(self as Function, []) : arrayCreate(0)) as AnyObject
        const iterator = apply(callback(usingIterator), items, []) as AnyObject
        if (typeof iterator !== 'object' || iterator === null) throw new TypeErrorCtor('not an object')
        const next = iterator.next
        for (let k = 0; ; k++) {
          const step = apply(next as Function, iterator, []) as AnyObject
          if (typeof step !== 'object' || step === null) throw new TypeErrorCtor('iterator result is not an object')
          if (step.done) {
            setLength(a, k)
            return a
          }
          try {
            if (k >= MAX_SAFE) throw new TypeErrorCtor('array too long')
            createData(a, k, mapped(step.value, k))
          } catch (error) {
            const close = iterator.return
            if (close !== undefined && close !== null) {
              try {
                apply(close as Function, iterator, [])
              } catch {
                // The first error wins (IteratorClose with a throw completion).
              }
            }
            throw error
          }
        }
      }
      const o = toObject(items)
      const len = lengthOf(o)
      const a = (isConstructor(self) ? construct(self as Function, [len]) : arrayCreate(len)) as AnyObject
      for (let k = 0; k < len; k++) createData(a, k, mapped(o[k], k))
      setLength(a, len)
      return a
    },
    typedFrom(self, args) {
      const source = args[0]
      const mapfn = args[1]
      const thisArg = args[2]
      if (!isConstructor(self)) throw new TypeErrorCtor('not a constructor')
      if (mapfn !== undefined) callback(mapfn)
      const usingIterator = source === null || source === undefined ? undefined : toObject(source)[p.iteratorSymbol]
      let values: AnyObject
      let len: number
      if (usingIterator !== undefined && usingIterator !== null) {
        const iterator = apply(callback(usingIterator), source, []) as AnyObject
        if (typeof iterator !== 'object' || iterator === null) throw new TypeErrorCtor('not an object')
        const next = iterator.next
        const list: unknown[] = []
        for (;;) {
          const step = apply(next as Function, iterator, []) as AnyObject
          if (typeof step !== 'object' || step === null) throw new TypeErrorCtor('iterator result is not an object')
          if (step.done) break
          createData(list, list.length, step.value)
        }
        values = list as unknown as AnyObject
        len = list.length
      } else {
        values = toObject(source)
        len = lengthOf(values)
      }
      const target = construct(self as Function, [len]) as AnyObject
      if (p.typedArrayLength(target) < len) throw new TypeErrorCtor('TypedArray length is too small')
      for (let k = 0; k < len; k++) {
        const value = values[k]
        target[k] = mapfn === undefined ? value : apply(mapfn as Function, thisArg, [value, k])
      }
      return target
    },
  }
}
