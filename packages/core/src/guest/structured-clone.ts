import type { Primordials } from './primordials.js'

/**
 * `structuredClone` for guests, after the HTML structured clone algorithm, for the values a guest
 * can make: primitives (not symbols); boxed booleans, numbers, strings and bigints; Dates;
 * RegExps (source and flags, `lastIndex` 0); ArrayBuffers, typed arrays and DataViews (views of
 * one buffer stay views of one cloned buffer); Maps and Sets; errors (name among the built-in
 * ones, else `Error`; own `message`, `stack` and `cause`); arrays (length and holes kept) and
 * other objects (own enumerable string keys, read with their getters, prototype dropped). Cycles
 * and shared references come out the same shape. Functions, symbols, WeakMaps, WeakSets,
 * WeakRefs, FinalizationRegistries, Promises and SharedArrayBuffers throw an error named
 * `DataCloneError`. `{ transfer: [buffer] }` moves ArrayBuffers where the engine has
 * `ArrayBuffer.prototype.transfer`, and throws DataCloneError elsewhere.
 *
 * Installed as the guest's `structuredClone` where the engine has none (isolated-vm isolates,
 * QuickJS and node:vm contexts do not). It uses only the built-ins captured before any guest
 * code ran, so a guest that replaced Map.prototype.set or Array.prototype.push changes nothing here.
 *
 * Shipped to engines as source text: self-contained, no template literals.
 */
export function createStructuredClone(p: Primordials): (value: unknown, options?: unknown) => unknown {
  'use strict'
  const {
    apply,
    create,
    keys,
    isArray,
    getPrototypeOf,
    defineProperty,
    dataDescriptor,
    dataValue,
    getOwnPropertyDescriptor,
    own,
    ObjectCtor,
    ArrayCtor,
    MapCtor,
    SetCtor,
    DateCtor,
    RegExpCtor,
    DataViewCtor,
    ErrorCtor,
    TypeErrorCtor,
    list,
    mapGet,
    mapHas,
    mapSet,
    mapForEach,
    mapSize,
    setAdd,
    setForEach,
    setSize,
    dateGetTime,
    regexpSource,
    regexpFlags,
    booleanValueOf,
    numberValueOf,
    stringValueOf,
    symbolValueOf,
    bigintValueOf,
    arrayBufferByteLength,
    arrayBufferSlice,
    arrayBufferTransfer,
    sharedArrayBufferByteLength,
    dataViewBuffer,
    dataViewByteOffset,
    dataViewByteLength,
    typedArrayTag,
    typedArrayBuffer,
    typedArrayByteOffset,
    typedArrayLength,
    weakMapHas,
    weakSetHas,
    weakRefDeref,
    finalizationRegistryUnregister,
    promisePrototype,
    objectPrototype,
    errorPrototype,
    regexpPrototype,
    ownKeys,
    TypedArray,
  } = p
  const G = globalThis as Record<string, unknown>
  // The realm's error and typed array classes, taken now, before any guest code.
  const ERROR_NAMES = ['Error', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError', 'TypeError', 'URIError']
  const errorCtors: Record<string, new (message?: string) => Error> = create(null)
  for (let i = 0; i < ERROR_NAMES.length; i++) errorCtors[ERROR_NAMES[i] as string] = G[ERROR_NAMES[i] as string] as new () => Error
  // Every typed array class of the realm: the globals whose prototype is %TypedArray%.
  const typedCtors: Record<string, new (buffer: ArrayBuffer, offset: number, length: number) => unknown> = create(null)
  const globalNames = ownKeys(G)
  for (let i = 0; i < globalNames.length; i++) {
    const name = globalNames[i]
    if (typeof name !== 'string') continue
    const ctor = dataValue(getOwnPropertyDescriptor(G, name))
    if (typeof ctor === 'function' && getPrototypeOf(ctor) === TypedArray) typedCtors[name] = ctor as (typeof typedCtors)[string]
  }

  function has(brand: Function | undefined, value: unknown, args: unknown[]): boolean {
    if (brand === undefined) return false
    try {
      apply(brand, value, args)
      return true
    } catch {
      return false
    }
  }

  function cloneError(what: string): Error {
    const error = new ErrorCtor(what + ' could not be cloned.')
    defineProperty(error, 'name', dataDescriptor('DataCloneError', false))
    defineProperty(error, 'code', dataDescriptor(25, false))
    return error
  }

  function describe(value: unknown): string {
    if (typeof value === 'function') return 'a function'
    if (typeof value === 'symbol') return 'a symbol'
    return 'this object'
  }

  /** Whether an error-like prototype chain reaches Error.prototype (errors have no side-effect-free brand check). */
  function isError(value: object): boolean {
    let proto: unknown = value
    for (let i = 0; i < 64 && proto !== null; i++) {
      proto = getPrototypeOf(proto)
      if (proto === errorPrototype) return true
    }
    return false
  }

  return function structuredClone(value: unknown, options?: unknown): unknown {
    if (arguments.length === 0) throw new TypeErrorCtor('structuredClone: 1 argument required, but only 0 present.')
    const memory = new MapCtor()
    const transfer = own(options, 'transfer')
    if (transfer !== undefined && transfer !== null) {
      if (!isArray(transfer)) throw new TypeErrorCtor('structuredClone: options.transfer must be an array')
      const list = transfer as unknown[]
      for (let i = 0; i < list.length; i++) {
        const buffer = list[i]
        if (!has(arrayBufferByteLength, buffer, [])) throw cloneError('a value in transfer that is not an ArrayBuffer')
        if (arrayBufferTransfer === undefined)
          throw cloneError('an ArrayBuffer to transfer (this engine has no ArrayBuffer.prototype.transfer)')
        if (apply(mapHas, memory, [buffer])) throw cloneError('an ArrayBuffer listed twice in transfer')
        apply(mapSet, memory, [buffer, undefined])
      }
      // Moved only once everything is known to be transferable, as the algorithm does.
      for (let i = 0; i < list.length; i++) apply(mapSet, memory, [list[i], apply(arrayBufferTransfer as Function, list[i], [])])
    }

    function cloneBuffer(buffer: object): unknown {
      if (apply(mapHas, memory, [buffer])) return apply(mapGet, memory, [buffer])
      const copy = apply(arrayBufferSlice, buffer, [0])
      apply(mapSet, memory, [buffer, copy])
      return copy
    }

    /** Own enumerable string keys, read with their getters, onto a fresh plain object. */
    function clonePlain(input: object, remember: <T>(output: T) => T): Record<string, unknown> {
      const output = remember({} as Record<string, unknown>)
      const names = keys(input)
      for (let i = 0; i < names.length; i++) {
        const name = names[i] as string
        defineProperty(output, name, dataDescriptor(clone((input as Record<string, unknown>)[name]), true))
      }
      return output
    }

    function clone(input: unknown): unknown {
      if (typeof input === 'symbol' || typeof input === 'function') throw cloneError(describe(input))
      if (typeof input !== 'object' || input === null) return input
      if (apply(mapHas, memory, [input])) return apply(mapGet, memory, [input])
      const remember = <T>(output: T): T => {
        apply(mapSet, memory, [input, output])
        return output
      }
      // Arrays have no other internal slot to look for; objects made plain (their prototype
      // Object.prototype or none) are taken as ordinary: each brand check below throws for them,
      // and a dozen throws per object made cloning data 100 times slower than a JSON round trip.
      // (An exotic object the guest gave such a prototype, Reflect.construct(Map, [], F) with
      // F.prototype = Object.prototype, is then cloned as a plain object.)
      if (isArray(input)) {
        const source = input as unknown[]
        const output = remember(new ArrayCtor(source.length))
        const names = keys(source)
        for (let i = 0; i < names.length; i++) {
          const name = names[i] as string
          defineProperty(output, name, dataDescriptor(clone(source[name as unknown as number]), true))
        }
        return output
      }
      const proto = getPrototypeOf(input)
      if (proto === objectPrototype || proto === null) return clonePlain(input, remember)
      if (has(booleanValueOf, input, [])) return remember(ObjectCtor(apply(booleanValueOf, input, [])))
      if (has(numberValueOf, input, [])) return remember(ObjectCtor(apply(numberValueOf, input, [])))
      if (has(stringValueOf, input, [])) return remember(ObjectCtor(apply(stringValueOf, input, [])))
      if (has(bigintValueOf, input, [])) return remember(ObjectCtor(apply(bigintValueOf as Function, input, [])))
      if (has(symbolValueOf, input, [])) throw cloneError('a symbol')
      if (has(dateGetTime, input, [])) return remember(new DateCtor(apply(dateGetTime, input, []) as number))
      // The source getter is the brand check (flags reads any object's properties).
      if (has(regexpSource, input, []) && input !== regexpPrototype) {
        return remember(new RegExpCtor(apply(regexpSource, input, []) as string, apply(regexpFlags, input, []) as string))
      }
      if (has(sharedArrayBufferByteLength, input, [])) throw cloneError('a SharedArrayBuffer')
      if (has(arrayBufferByteLength, input, [])) return cloneBuffer(input)
      const tag = has(typedArrayTag, input, []) ? (apply(typedArrayTag, input, []) as string | undefined) : undefined
      if (tag !== undefined) {
        const Ctor = typedCtors[tag]
        if (Ctor === undefined) throw cloneError('a ' + tag)
        const buffer = cloneBuffer(apply(typedArrayBuffer, input, []) as object) as ArrayBuffer
        return remember(new Ctor(buffer, apply(typedArrayByteOffset, input, []) as number, apply(typedArrayLength, input, []) as number))
      }
      if (has(dataViewByteLength, input, [])) {
        const buffer = cloneBuffer(apply(dataViewBuffer, input, []) as object) as ArrayBuffer
        const offset = apply(dataViewByteOffset, input, []) as number
        return remember(new DataViewCtor(buffer, offset, apply(dataViewByteLength, input, []) as number))
      }
      if (has(mapSize, input, [])) {
        const output = remember(new MapCtor())
        // Arrays of our own (no prototype): a setter the guest put on Array.prototype never runs.
        const entries: unknown[] = list()
        apply(mapForEach, input, [
          (v: unknown, k: unknown) => {
            entries[entries.length] = k
            entries[entries.length] = v
          },
        ])
        for (let i = 0; i < entries.length; i += 2) apply(mapSet, output, [clone(entries[i]), clone(entries[i + 1])])
        return output
      }
      if (has(setSize, input, [])) {
        const output = remember(new SetCtor())
        const items: unknown[] = list()
        apply(setForEach, input, [
          (v: unknown) => {
            items[items.length] = v
          },
        ])
        for (let i = 0; i < items.length; i++) apply(setAdd, output, [clone(items[i])])
        return output
      }
      if (has(weakMapHas, input, [{}]) || has(weakSetHas, input, [{}])) throw cloneError('a WeakMap or WeakSet')
      if (has(weakRefDeref, input, []) || has(finalizationRegistryUnregister, input, [{}]))
        throw cloneError('a WeakRef or FinalizationRegistry')
      if (proto === promisePrototype) throw cloneError('a Promise')
      if (isError(input)) {
        // As the algorithm reads them: name and stack with Get (getters run), message as own data.
        const read = (key: string): unknown => {
          try {
            return (input as Record<string, unknown>)[key]
          } catch {
            return undefined
          }
        }
        const name = read('name')
        const Ctor = typeof name === 'string' && errorCtors[name] !== undefined ? errorCtors[name] : errorCtors.Error!
        const output = remember(new Ctor())
        const message = dataValue(getOwnPropertyDescriptor(input, 'message'))
        if (typeof message === 'string') defineProperty(output, 'message', dataDescriptor(message, false))
        const stack = read('stack')
        if (typeof stack === 'string') defineProperty(output, 'stack', dataDescriptor(stack, false))
        const cause = getOwnPropertyDescriptor(input, 'cause')
        if (cause !== undefined) defineProperty(output, 'cause', dataDescriptor(clone(dataValue(cause)), false))
        return output
      }
      return clonePlain(input, remember)
    }

    return clone(value)
  }
}

export type StructuredClone = ReturnType<typeof createStructuredClone>
