/**
 * The built-ins cordon's guest-side code uses, captured before any guest code runs: the guest
 * runtime, the value codec, the console formatter and each backend's guards (isolated-vm's memory
 * guards, QuickJS's length guard, the subprocess child's guards) all take their built-ins from here,
 * so a guest that later replaces `Reflect.apply`, `JSON` or `Array.prototype.join` changes nothing
 * for them. Each guest-side source calls this once, when it is set up (a guard that wraps a
 * built-in is captured wrapped by the code set up after it).
 *
 * Shipped to engines as source text (PRIMORDIALS_SOURCE): self-contained, and no template literals
 * (QuickJS compiles them to String.prototype.concat calls).
 */
export function capturePrimordials() {
  'use strict'
  const describe = Object.getOwnPropertyDescriptor
  const getter = (owner: object, key: PropertyKey): (() => unknown) => (describe(owner, key) as PropertyDescriptor).get as () => unknown
  const typedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object
  const apply = Reflect.apply
  const hasOwn = Object.prototype.hasOwnProperty
  const setPrototypeOf = Object.setPrototypeOf
  const create = Object.create
  const VALUE_KEY = ['value']

  // Helpers every guest-side source needs, built on the captured built-ins only.
  /** An array of our own: no prototype, so writing past its end reaches no accessor the guest defined. */
  const list = <T>(): T[] => setPrototypeOf([], null) as T[]
  /**
   * An own property's value, or undefined (also for a primitive): never read through a prototype,
   * nor through a descriptor (a Node vm context's global hands V8 one of the guest's realm).
   */
  const own = (object: unknown, key: PropertyKey): unknown =>
    ((typeof object === 'object' && object !== null) || typeof object === 'function') && apply(hasOwn, object, [key])
      ? (object as Record<PropertyKey, unknown>)[key]
      : undefined
  /** Whether a descriptor from getOwnPropertyDescriptor is a data property's, by its own fields. */
  const isData = (descriptor: PropertyDescriptor | undefined): boolean =>
    descriptor !== undefined && (apply(hasOwn, descriptor, VALUE_KEY) as boolean)
  /** A data descriptor's value; undefined for an accessor or no property. */
  const dataValue = (descriptor: PropertyDescriptor | undefined): unknown =>
    isData(descriptor) ? (descriptor as PropertyDescriptor).value : undefined
  /** A writable, configurable data descriptor with no prototype (a guest's Object.prototype.get cannot join it). */
  const dataDescriptor = (value: unknown, enumerable: boolean): PropertyDescriptor => {
    const descriptor = create(null) as PropertyDescriptor
    descriptor.value = value
    descriptor.writable = true
    descriptor.enumerable = enumerable
    descriptor.configurable = true
    return descriptor
  }

  const captured = {
    list,
    own,
    isData,
    dataValue,
    dataDescriptor,
    apply,
    construct: Reflect.construct,
    ownKeys: Reflect.ownKeys,
    keys: Object.keys,
    create,
    defineProperty: Object.defineProperty,
    getOwnPropertyDescriptor: describe,
    getPrototypeOf: Object.getPrototypeOf,
    setPrototypeOf,
    hasOwn,
    objectIs: Object.is,
    isArray: Array.isArray,
    isFiniteNumber: Number.isFinite,
    floor: Math.floor,
    parseInt,
    parseFloat,
    jsonParse: JSON.parse,
    jsonStringify: JSON.stringify,
    /** Only where the engine has JSON.rawJSON: records JSON.stringify writes as raw text. */
    jsonIsRawJSON: (JSON as unknown as Record<string, unknown>).isRawJSON as ((value: unknown) => boolean) | undefined,
    ObjectCtor: Object,
    ArrayCtor: Array,
    StringCtor: String,
    NumberCtor: Number,
    ProxyCtor: Proxy,
    PromiseCtor: Promise,
    DateCtor: Date,
    MapCtor: Map,
    SetCtor: Set,
    WeakSetCtor: WeakSet,
    Uint8ArrayCtor: Uint8Array,
    ErrorCtor: Error,
    TypeErrorCtor: TypeError,
    RangeErrorCtor: RangeError,
    SyntaxErrorCtor: SyntaxError,
    ReferenceErrorCtor: ReferenceError,
    EvalErrorCtor: EvalError,
    URIErrorCtor: URIError,
    BigIntCtor: typeof BigInt === 'function' ? BigInt : undefined,
    objectPrototype: Object.prototype,
    arrayPrototype: Array.prototype,
    stringPrototype: String.prototype,
    errorPrototype: Error.prototype,
    rangeErrorPrototype: RangeError.prototype,
    regexpPrototype: RegExp.prototype,
    promisePrototype: Promise.prototype,
    typedArrayPrototype,
    TypedArray: Object.getPrototypeOf(Uint8Array) as Function,
    arrayJoin: Array.prototype.join,
    arraySort: Array.prototype.sort,
    arrayValues: Array.prototype.values,
    stringSlice: String.prototype.slice,
    stringIndexOf: String.prototype.indexOf,
    stringCharCodeAt: String.prototype.charCodeAt,
    functionToString: Function.prototype.toString,
    functionBind: Function.prototype.bind,
    functionCall: Function.prototype.call,
    objectToString: Object.prototype.toString,
    /** Annex B's `__lookupGetter__`: finds an accessor without running it (undefined where an engine lacks it). */
    lookupGetter: (Object.prototype as unknown as Record<string, unknown>).__lookupGetter__ as Function | undefined,
    symbolToString: Symbol.prototype.toString,
    bigintToString: typeof BigInt === 'function' ? (BigInt.prototype as { toString: () => string }).toString : undefined,
    errorToString: Error.prototype.toString,
    promiseThen: Promise.prototype.then,
    promiseResolve: Promise.resolve,
    dateGetTime: Date.prototype.getTime,
    dateToISOString: Date.prototype.toISOString,
    mapSize: getter(Map.prototype, 'size'),
    mapForEach: Map.prototype.forEach,
    mapSet: Map.prototype.set,
    setSize: getter(Set.prototype, 'size'),
    setForEach: Set.prototype.forEach,
    setAdd: Set.prototype.add,
    weakMapHas: WeakMap.prototype.has,
    weakSetHas: WeakSet.prototype.has,
    weakSetAdd: WeakSet.prototype.add,
    regexpExec: RegExp.prototype.exec,
    regexpToString: RegExp.prototype.toString,
    regexpSource: getter(RegExp.prototype, 'source'),
    regexpFlags: getter(RegExp.prototype, 'flags'),
    RegExpCtor: RegExp,
    booleanValueOf: Boolean.prototype.valueOf,
    numberValueOf: Number.prototype.valueOf,
    stringValueOf: String.prototype.valueOf,
    symbolValueOf: Symbol.prototype.valueOf,
    bigintValueOf: typeof BigInt === 'function' ? (BigInt.prototype as { valueOf: () => bigint }).valueOf : undefined,
    mapGet: Map.prototype.get,
    mapHas: Map.prototype.has,
    arrayBufferSlice: ArrayBuffer.prototype.slice,
    /** ES2024's ArrayBuffer.prototype.transfer, where the engine has it. */
    arrayBufferTransfer: (ArrayBuffer.prototype as unknown as Record<string, unknown>).transfer as
      ((this: ArrayBuffer) => ArrayBuffer) | undefined,
    sharedArrayBufferByteLength: typeof SharedArrayBuffer === 'function' ? getter(SharedArrayBuffer.prototype, 'byteLength') : undefined,
    DataViewCtor: DataView,
    dataViewBuffer: getter(DataView.prototype, 'buffer'),
    dataViewByteOffset: getter(DataView.prototype, 'byteOffset'),
    typedArrayByteOffset: getter(typedArrayPrototype, 'byteOffset'),
    // Where the engine has them (typed here by hand: not every lib this compiles against knows them).
    weakRefDeref: (globalThis as { WeakRef?: { prototype: { deref: () => unknown } } }).WeakRef?.prototype.deref,
    finalizationRegistryUnregister: (globalThis as { FinalizationRegistry?: { prototype: { unregister: (token: object) => boolean } } })
      .FinalizationRegistry?.prototype.unregister,
    typedArrayTag: getter(typedArrayPrototype, Symbol.toStringTag),
    typedArrayLength: getter(typedArrayPrototype, 'length'),
    typedArrayBuffer: getter(typedArrayPrototype, 'buffer'),
    arrayBufferByteLength: getter(ArrayBuffer.prototype, 'byteLength'),
    dataViewByteLength: getter(DataView.prototype, 'byteLength'),
    iteratorSymbol: Symbol.iterator,
    speciesSymbol: Symbol.species,
    spreadableSymbol: Symbol.isConcatSpreadable,
    toStringTagSymbol: Symbol.toStringTag,
  }
  // A record of our own: no prototype for a guest to reach through, and frozen.
  setPrototypeOf(captured, null)
  return Object.freeze(captured)
}

export type Primordials = ReturnType<typeof capturePrimordials>

/** Source of one expression that captures the primordials of the realm it is evaluated in. */
export const PRIMORDIALS_SOURCE = '(' + capturePrimordials.toString() + ')()'
