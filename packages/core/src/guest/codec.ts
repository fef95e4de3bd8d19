/**
 * The value codec: one implementation of the value model, used inside every guest
 * (shipped as source text) and on the host (called directly).
 *
 * Wire format: JSON text. Strings, booleans, null and finite numbers are themselves;
 * arrays are arrays; plain objects are objects; everything else is a tagged object
 * `{ "$": tag, "v": … }` (undefined, NaN, ±Infinity, -0, bigint, date, map, set,
 * error, typed arrays, ArrayBuffer). A plain object that has its own `$` key is sent
 * escaped as `{ "$": "object", "v": [[key, value], …] }`.
 *
 * Values that cannot cross (functions, symbols, promises, weak collections, regular
 * expressions, DataViews, cycles, accessor properties, nesting deeper than MAX_DEPTH)
 * throw a TypeError naming the path. A size over the budget throws a limit marker
 * object that the runtime turns into OUTPUT_LIMIT.
 *
 * Self-contained on purpose: it is stringified into guest engines. Intrinsics are
 * captured once so guest changes to built-ins cannot alter encoding.
 */
export interface Codec {
  /** True only for limit errors this codec threw; a guest cannot forge one, and a Proxy runs no trap here. */
  isLimitError(value: unknown): value is { code: 'OUTPUT_LIMIT'; message: string }
  encode(value: unknown, budget: number, what: string): string
  decode(wire: string): unknown
  decodeTree(tree: unknown): unknown
  isError(value: unknown): boolean
}

export function createCodec(): Codec {
  'use strict'
  const MAX_DEPTH = 1000
  const MAX_BIGINT_DIGITS = 100_000
  const apply = Reflect.apply
  const keys = Object.keys
  const getProto = Object.getPrototypeOf
  const describeProp = Object.getOwnPropertyDescriptor
  const defineProperty = Object.defineProperty
  const create = Object.create
  const isArray = Array.isArray
  const objectIs = Object.is
  const jsonStringify = JSON.stringify
  const jsonParse = JSON.parse
  const isFiniteNumber = Number.isFinite
  const StringCtor = String
  const TypeErrorCtor = TypeError
  const ErrorCtor = Error
  const DateCtor = Date
  const MapCtor = Map
  const SetCtor = Set
  const Uint8ArrayCtor = Uint8Array
  const hasBigInt = typeof BigInt === 'function'
  const BigIntCtor = hasBigInt ? BigInt : undefined
  const bigintToString = hasBigInt ? BigInt.prototype.toString : undefined
  const dateGetTime = Date.prototype.getTime
  const mapSize = (describeProp(Map.prototype, 'size') as PropertyDescriptor).get as () => number
  const mapForEach = Map.prototype.forEach
  const mapSet = Map.prototype.set
  const setSize = (describeProp(Set.prototype, 'size') as PropertyDescriptor).get as () => number
  const setForEach = Set.prototype.forEach
  const setAdd = Set.prototype.add
  const typedArrayProto = getProto(Uint8Array.prototype)
  const typedArrayTag = (describeProp(typedArrayProto, Symbol.toStringTag) as PropertyDescriptor).get as () => string | undefined
  const typedArrayLength = (describeProp(typedArrayProto, 'length') as PropertyDescriptor).get as () => number
  const bufferByteLength = (describeProp(ArrayBuffer.prototype, 'byteLength') as PropertyDescriptor).get as () => number
  const dataViewByteLength = (describeProp(DataView.prototype, 'byteLength') as PropertyDescriptor).get as () => number
  const regexpSource = (describeProp(RegExp.prototype, 'source') as PropertyDescriptor).get as () => string
  const weakMapHas = WeakMap.prototype.has
  const weakSetHas = WeakSet.prototype.has
  const errorProto = Error.prototype
  const regexpProto = RegExp.prototype
  const promiseProto = Promise.prototype
  const objectProto = Object.prototype
  const typedCtors: Record<string, new (n: number) => { [i: number]: unknown; length: number }> = create(null)
  const typedNames = [
    'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array',
    'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array',
  ]
  for (let i = 0; i < typedNames.length; i++) {
    const name = typedNames[i] as string
    const ctor = (globalThis as Record<string, unknown>)[name]
    if (typeof ctor === 'function') typedCtors[name] = ctor as (typeof typedCtors)[string]
  }
  const errorCtors: Record<string, new (message: string) => Error> = create(null)
  errorCtors.Error = Error
  errorCtors.TypeError = TypeError
  errorCtors.RangeError = RangeError
  errorCtors.SyntaxError = SyntaxError
  errorCtors.ReferenceError = ReferenceError
  errorCtors.EvalError = EvalError
  errorCtors.URIError = URIError

  function has(brand: Function, value: unknown, arg?: unknown): boolean {
    try {
      apply(brand, value, arg === undefined ? [] : [arg])
      return true
    } catch {
      return false
    }
  }

  function isError(value: unknown): boolean {
    if (typeof value !== 'object' || value === null) return false
    let proto: unknown = value
    for (let i = 0; i < 64 && proto !== null; i++) {
      try {
        proto = getProto(proto)
      } catch {
        return false
      }
      if (proto === errorProto) return true
    }
    return false
  }

  const weakSetAdd = WeakSet.prototype.add
  const limitErrors = new WeakSet<object>()

  function limitError(what: string, budget: number): never {
    const error: Record<string, unknown> = create(null)
    apply(weakSetAdd, limitErrors, [error])
    error.code = 'OUTPUT_LIMIT'
    error.message = `${what} is larger than maxOutputBytes (${budget} bytes)`
    throw error
  }

  function tagged(tag: string, v: unknown): unknown {
    const out: Record<string, unknown> = create(null)
    out.$ = tag
    if (v !== undefined) out.v = v
    return out
  }

  function encode(value: unknown, budget: number, what: string): string {
    let used = 0
    const stack: unknown[] = []
    const path: (string | number)[] = []

    function where(): string {
      let out = '$'
      for (let i = 0; i < path.length; i++) {
        const key = path[i]
        out += typeof key === 'number' ? `[${key}]` : `.${key}`
      }
      return out
    }

    function refuse(description: string): never {
      throw new TypeErrorCtor(`${description} (at ${where()}) cannot leave or enter the sandbox: only data can (${what})`)
    }

    function spend(amount: number): void {
      used += amount
      if (used > budget) limitError(what, budget)
    }

    function walk(input: unknown): unknown {
      switch (typeof input) {
        case 'string':
          spend(input.length + 2)
          return input
        case 'boolean':
          spend(5)
          return input
        case 'number':
          spend(8)
          if (isFiniteNumber(input) && !objectIs(input, -0)) return input
          return tagged('number', objectIs(input, -0) ? '-0' : StringCtor(input))
        case 'undefined':
          spend(14)
          return tagged('undefined', undefined)
        case 'bigint': {
          const digits = apply(bigintToString as Function, input, []) as string
          spend(digits.length + 20)
          return tagged('bigint', digits)
        }
        case 'function':
          return refuse('a function')
        case 'symbol':
          return refuse('a symbol')
      }
      if (input === null) {
        spend(4)
        return null
      }
      const object = input as Record<string, unknown>
      for (let i = 0; i < stack.length; i++) if (stack[i] === object) refuse('a circular reference')
      if (stack.length >= MAX_DEPTH) refuse(`a value nested deeper than ${MAX_DEPTH} levels`)
      stack[stack.length] = object
      try {
        return walkObject(object)
      } finally {
        stack.length--
      }
    }

    function walkObject(object: Record<string, unknown>): unknown {
      spend(2)
      if (isArray(object)) {
        const length = object.length
        if (length > budget - used) limitError(what, budget)
        const out: unknown[] = new Array(length)
        for (let i = 0; i < length; i++) {
          path[path.length] = i
          out[i] = walk(object[i])
          path.length--
        }
        return out
      }
      // Plain objects, the bulk of real data, skip the brand checks below: each one throws for
      // them, and throwing made a megabyte of records cost a second. An exotic object moved onto
      // Object.prototype (or null) is encoded by its own properties, as any object is.
      const proto = getProto(object)
      if (proto === objectProto || proto === null) return walkProperties(object)
      if (has(dateGetTime, object)) {
        spend(30)
        const time = apply(dateGetTime, object, []) as number
        return tagged('date', time === time ? time : null)
      }
      if (has(mapSize, object)) {
        const entries: unknown[] = []
        apply(mapForEach, object, [
          (v: unknown, k: unknown) => {
            path[path.length] = 'key'
            const key = walk(k)
            path[path.length - 1] = 'value'
            const val = walk(v)
            path.length--
            entries[entries.length] = [key, val]
          },
        ])
        return tagged('map', entries)
      }
      if (has(setSize, object)) {
        const items: unknown[] = []
        apply(setForEach, object, [
          (v: unknown) => {
            path[path.length] = 'item'
            items[items.length] = walk(v)
            path.length--
          },
        ])
        return tagged('set', items)
      }
      const typedName = apply(typedArrayTag, object, []) as string | undefined
      if (typedName !== undefined) {
        const length = apply(typedArrayLength, object, []) as number
        spend(length * 2 + 20)
        const items: unknown[] = new Array(length)
        for (let i = 0; i < length; i++) items[i] = walk((object as unknown as unknown[])[i])
        return tagged(typedName, items)
      }
      if (has(bufferByteLength, object)) {
        const view = new Uint8ArrayCtor(object as unknown as ArrayBuffer)
        spend(view.length * 2 + 20)
        const bytes: number[] = new Array(view.length)
        for (let i = 0; i < view.length; i++) bytes[i] = view[i] as number
        return tagged('ArrayBuffer', bytes)
      }
      if (has(dataViewByteLength, object)) refuse('a DataView')
      if (has(regexpSource, object) && (object as unknown) !== regexpProto) refuse('a regular expression')
      if (has(weakMapHas, object, {}) || has(weakSetHas, object, {})) refuse('a WeakMap or WeakSet')
      if (proto === promiseProto) refuse('a Promise (await it first)')
      if (isError(object)) {
        const name = object.name
        const message = object.message
        const out: Record<string, unknown> = create(null)
        out.$ = 'error'
        out.name = typeof name === 'string' ? name : 'Error'
        out.message = typeof message === 'string' ? message : StringCtor(message)
        spend((out.name as string).length + (out.message as string).length + 30)
        return out
      }
      return walkProperties(object)
    }

    function walkProperties(object: Record<string, unknown>): unknown {
      const names = keys(object)
      const out: Record<string, unknown> = create(null)
      let escaped = false
      for (let i = 0; i < names.length; i++) if (names[i] === '$') escaped = true
      const entries: unknown[] = []
      for (let i = 0; i < names.length; i++) {
        const key = names[i] as string
        const descriptor = describeProp(object, key)
        if (descriptor === undefined) continue
        path[path.length] = key
        if (descriptor.get !== undefined || descriptor.set !== undefined) refuse('a getter or setter property')
        spend(key.length + 4)
        const encoded = walk(descriptor.value)
        path.length--
        if (escaped) entries[entries.length] = [key, encoded]
        else out[key] = encoded
      }
      return escaped ? tagged('object', entries) : out
    }

    const tree = walk(value)
    const wire = jsonStringify(tree) as string
    if (wire.length > budget) limitError(what, budget)
    return wire
  }

  function decodeTree(tree: unknown, depth = 0): unknown {
    if (typeof tree !== 'object' || tree === null) return tree
    if (depth > MAX_DEPTH + 2) throw new TypeErrorCtor('value is nested too deeply')
    if (isArray(tree)) {
      const out: unknown[] = new Array(tree.length)
      for (let i = 0; i < tree.length; i++) out[i] = decodeTree(tree[i], depth + 1)
      return out
    }
    const node = tree as Record<string, unknown>
    const tag = describeProp(node, '$')
    if (tag === undefined) {
      const out: Record<string, unknown> = {}
      const names = keys(node)
      for (let i = 0; i < names.length; i++) {
        const key = names[i] as string
        defineProperty(out, key, { value: decodeTree(node[key], depth + 1), writable: true, enumerable: true, configurable: true })
      }
      return out
    }
    return decodeTagged(tag.value, node.v, node, depth)
  }

  function badWire(): never {
    throw new TypeErrorCtor('malformed value on the wire')
  }

  function decodeTagged(tag: unknown, v: unknown, node: Record<string, unknown>, depth: number): unknown {
    switch (tag) {
      case 'undefined':
        return undefined
      case 'number':
        if (v === 'NaN') return NaN
        if (v === 'Infinity') return Infinity
        if (v === '-Infinity') return -Infinity
        if (v === '-0') return -0
        return badWire()
      case 'bigint':
        if (BigIntCtor === undefined) throw new TypeErrorCtor('BigInt is not available in this engine')
        if (typeof v !== 'string' || v.length > MAX_BIGINT_DIGITS) return badWire()
        return BigIntCtor(v)
      case 'date':
        if (v !== null && typeof v !== 'number') return badWire()
        return new DateCtor(v === null ? NaN : v)
      case 'map': {
        if (!isArray(v)) return badWire()
        const map = new MapCtor()
        for (let i = 0; i < v.length; i++) {
          const entry = v[i]
          if (!isArray(entry) || entry.length !== 2) return badWire()
          apply(mapSet, map, [decodeTree(entry[0], depth + 1), decodeTree(entry[1], depth + 1)])
        }
        return map
      }
      case 'set': {
        if (!isArray(v)) return badWire()
        const set = new SetCtor()
        for (let i = 0; i < v.length; i++) apply(setAdd, set, [decodeTree(v[i], depth + 1)])
        return set
      }
      case 'object': {
        if (!isArray(v)) return badWire()
        const out: Record<string, unknown> = {}
        for (let i = 0; i < v.length; i++) {
          const entry = v[i]
          if (!isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string') return badWire()
          defineProperty(out, entry[0], { value: decodeTree(entry[1], depth + 1), writable: true, enumerable: true, configurable: true })
        }
        return out
      }
      case 'error': {
        const name = typeof node.name === 'string' ? node.name : 'Error'
        const message = typeof node.message === 'string' ? node.message : ''
        const Ctor = errorCtors[name] ?? ErrorCtor
        const error = new Ctor(message)
        if (error.name !== name) defineProperty(error, 'name', { value: name, writable: true, configurable: true, enumerable: false })
        return error
      }
      case 'ArrayBuffer': {
        if (!isArray(v)) return badWire()
        const bytes = new Uint8ArrayCtor(v.length)
        for (let i = 0; i < v.length; i++) bytes[i] = v[i] as number
        return bytes.buffer
      }
    }
    if (typeof tag === 'string') {
      const Ctor = typedCtors[tag]
      if (Ctor !== undefined && isArray(v)) {
        const out = new Ctor(v.length)
        for (let i = 0; i < v.length; i++) out[i] = decodeTree(v[i], depth + 1)
        return out
      }
      for (let i = 0; i < typedNames.length; i++) {
        if (typedNames[i] === tag) throw new TypeErrorCtor(`${tag} is not available in this engine`)
      }
    }
    return badWire()
  }

  return {
    isLimitError(value: unknown): value is { code: 'OUTPUT_LIMIT'; message: string } {
      return typeof value === 'object' && value !== null && apply(weakSetHas, limitErrors, [value]) === true
    },
    encode,
    decode(wire: string): unknown {
      return decodeTree(jsonParse(wire))
    },
    decodeTree(tree: unknown): unknown {
      return decodeTree(tree)
    },
    isError,
  }
}
