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
import type { createPlainJson } from './plain-json.js'
import type { Primordials } from './primordials.js'

export interface Codec {
  /** True only for limit errors this codec threw; a guest cannot forge one, and a Proxy runs no trap here. */
  isLimitError(value: unknown): value is { code: 'OUTPUT_LIMIT'; message: string }
  encode(value: unknown, budget: number, what: string): string
  decode(wire: string): unknown
  /**
   * Wire text this codec wrote on the other side (the host's, entering a guest). Text with no
   * tagged value is plain JSON: JSON.parse alone decodes it, with no walk. Never for a guest's text.
   */
  decodeTrusted(wire: string): unknown
  decodeTree(tree: unknown): unknown
  isError(value: unknown): boolean
}

/** `plainJsonFactory`: the fast path for plain JSON data (plain-json.ts); without it every value is walked. */
export function createCodec(p: Primordials, plainJsonFactory?: typeof createPlainJson): Codec {
  'use strict'
  const MAX_DEPTH = 1000
  const MAX_BIGINT_DIGITS = 100_000
  const {
    apply,
    keys,
    hasOwn,
    getPrototypeOf: getProto,
    getOwnPropertyDescriptor: describeProp,
    defineProperty,
    create,
    isArray,
    objectIs,
    jsonStringify,
    jsonParse,
    setPrototypeOf: setProto,
    arrayPrototype: arrayProto,
    arrayJoin,
    stringIndexOf,
    isFiniteNumber,
    StringCtor,
    TypeErrorCtor,
    ErrorCtor,
    DateCtor,
    MapCtor,
    SetCtor,
    WeakSetCtor,
    Uint8ArrayCtor,
    BigIntCtor,
    bigintToString,
    dateGetTime,
    mapSize,
    mapForEach,
    mapSet,
    setSize,
    setForEach,
    setAdd,
    typedArrayTag,
    typedArrayLength,
    typedArrayBuffer,
    arrayBufferByteLength: bufferByteLength,
    dataViewByteLength,
    regexpSource,
    weakMapHas,
    weakSetHas,
    weakSetAdd,
    errorPrototype: errorProto,
    regexpPrototype: regexpProto,
    promisePrototype: promiseProto,
    objectPrototype: objectProto,
    list,
    own,
    isData,
    dataDescriptor,
  } = p
  const typedCtors: Record<string, new (n: number) => { [i: number]: unknown; length: number }> = create(null)
  const typedNames = [
    'Int8Array',
    'Uint8Array',
    'Uint8ClampedArray',
    'Int16Array',
    'Uint16Array',
    'Int32Array',
    'Uint32Array',
    'Float32Array',
    'Float64Array',
    'BigInt64Array',
    'BigUint64Array',
  ]
  for (let i = 0; i < typedNames.length; i++) {
    const name = typedNames[i] as string
    const ctor = (globalThis as Record<string, unknown>)[name]
    if (typeof ctor === 'function') typedCtors[name] = ctor as (typeof typedCtors)[string]
  }
  const errorCtors: Record<string, new (message: string) => Error> = create(null)
  errorCtors.Error = ErrorCtor
  errorCtors.TypeError = TypeErrorCtor
  errorCtors.RangeError = p.RangeErrorCtor
  errorCtors.SyntaxError = p.SyntaxErrorCtor
  errorCtors.ReferenceError = p.ReferenceErrorCtor
  errorCtors.EvalError = p.EvalErrorCtor
  errorCtors.URIError = p.URIErrorCtor

  /** Pieces of text gathered per join; well under QuickJS's length guard (2 ** 16). */
  const CHUNK = 4096
  const TAG_KEY = ['$']
  const TAG_OPENING = ['{"$"']
  const EMPTY_SEPARATOR = ['']

  /**
   * One string of the pieces of `items`, an array of our own that nothing else holds. It gets the
   * real Array.prototype only now, for join's fast path: join reads its own elements and length.
   */
  function joined(items: string[]): string {
    setProto(items, arrayProto)
    return apply(arrayJoin, items, EMPTY_SEPARATOR) as string
  }

  /** A JSON string literal. The engine's JSON.stringify is safe for a primitive string: no objects, no prototypes. */
  function quote(text: string): string {
    return jsonStringify(text)
  }

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

  const limitErrors = new WeakSetCtor() as WeakSet<object>

  function limitError(what: string, budget: number): never {
    const error: Record<string, unknown> = create(null)
    apply(weakSetAdd, limitErrors, [error])
    error.code = 'OUTPUT_LIMIT'
    error.message = what + ' is larger than maxOutputBytes (' + budget + ' bytes)'
    // Not an Error on purpose: a null-prototype record the guest cannot forge or reach into.
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    throw error
  }

  // Made at the first object encoded: a run that only passes primitives (most tool calls and
  // results) never pays for it, and every fresh engine sets up a codec. It reads only the
  // primordials captured before any guest code ran, so making it later changes nothing.
  let plainJson: ReturnType<typeof createPlainJson> | undefined

  function encode(value: unknown, budget: number, what: string): string {
    if (plainJsonFactory !== undefined && typeof value === 'object' && value !== null) {
      if (plainJson === undefined) plainJson = plainJsonFactory(p)
      const plain = plainJson.write(value, budget)
      if (plain !== undefined) {
        if (plain.length > budget) limitError(what, budget)
        return plain
      }
    }
    let used = 0
    // The walk: its own arrays have no prototype and the JSON text is written here, not by the
    // engine's JSON.stringify (QuickJS's keeps its work stack in an ordinary array): nothing the
    // guest puts on Array.prototype or Object.prototype ever sees or steers this work. (The fast
    // path above hands plain data to JSON.stringify only while those prototypes are clean.)
    const stack: object[] = list()
    const path: (string | number)[] = list()
    // The text is gathered in pieces and joined a chunk at a time: joins stay short (QuickJS's
    // length guard hands long ones to a slow JavaScript join) and no piece is copied twice.
    const chunks: string[] = list()
    let parts: string[] = list()
    let count = 0
    const emit = (text: string): void => {
      parts[count++] = text
      if (count === CHUNK) {
        chunks[chunks.length] = joined(parts)
        parts = list()
        count = 0
      }
    }
    /** Keys repeat from record to record: each is quoted once per encode. */
    const quotedKeys: Record<string, string> = create(null)
    const quoteKey = (key: string): string => quotedKeys[key] ?? (quotedKeys[key] = quote(key))

    function where(): string {
      let out = '$'
      for (let i = 0; i < path.length; i++) {
        const key = path[i]
        out += typeof key === 'number' ? '[' + key + ']' : '.' + key
      }
      return out
    }

    function refuse(description: string): never {
      throw new TypeErrorCtor(description + ' (at ' + where() + ') cannot leave or enter the sandbox: only data can (' + what + ')')
    }

    function spend(amount: number): void {
      used += amount
      if (used > budget) limitError(what, budget)
    }

    function walk(input: unknown): void {
      switch (typeof input) {
        case 'string':
          spend(input.length + 2)
          emit(quote(input))
          return
        case 'boolean':
          spend(5)
          emit(input ? 'true' : 'false')
          return
        case 'number':
          spend(8)
          if (isFiniteNumber(input) && !objectIs(input, -0)) emit(StringCtor(input))
          else emit('{"$":"number","v":"' + (objectIs(input, -0) ? '-0' : StringCtor(input)) + '"}')
          return
        case 'undefined':
          spend(14)
          emit('{"$":"undefined"}')
          return
        case 'bigint': {
          const digits = apply(bigintToString as Function, input, []) as string
          spend(digits.length + 20)
          emit('{"$":"bigint","v":"' + digits + '"}')
          return
        }
        case 'function':
          return refuse('a function')
        case 'symbol':
          return refuse('a symbol')
      }
      if (input === null) {
        spend(4)
        emit('null')
        return
      }
      const object = input as Record<string, unknown>
      for (let i = 0; i < stack.length; i++) if (stack[i] === object) refuse('a circular reference')
      if (stack.length >= MAX_DEPTH) refuse('a value nested deeper than ' + MAX_DEPTH + ' levels')
      stack[stack.length] = object
      try {
        walkObject(object)
      } finally {
        stack.length--
      }
    }

    /** `[a,b,…]` of `length` items, each written by `item(i)`. */
    function walkList(length: number, item: (i: number) => void): void {
      emit('[')
      for (let i = 0; i < length; i++) {
        if (i > 0) emit(',')
        item(i)
      }
      emit(']')
    }

    function walkObject(object: Record<string, unknown>): void {
      spend(2)
      if (isArray(object)) {
        const length = object.length
        if (length > budget - used) limitError(what, budget)
        emit('[')
        const depth = path.length
        for (let i = 0; i < length; i++) {
          if (i > 0) emit(',')
          path[depth] = i
          walk(object[i])
        }
        path.length = depth
        emit(']')
        return
      }
      // Plain objects, the bulk of real data, skip the brand checks below: each one throws for
      // them, and throwing made a megabyte of records cost a second. An exotic object moved onto
      // Object.prototype (or null) is encoded by its own properties, as any object is.
      const proto = getProto(object)
      if (proto === objectProto || proto === null) return walkProperties(object)
      if (has(dateGetTime, object)) {
        spend(30)
        const time = apply(dateGetTime, object, []) as number
        emit('{"$":"date","v":' + (time === time ? StringCtor(time) : 'null') + '}')
        return
      }
      if (has(mapSize, object)) {
        emit('{"$":"map","v":[')
        let first = true
        apply(mapForEach, object, [
          (v: unknown, k: unknown) => {
            emit(first ? '[' : ',[')
            first = false
            path[path.length] = 'key'
            walk(k)
            emit(',')
            path[path.length - 1] = 'value'
            walk(v)
            path.length--
            emit(']')
          },
        ])
        emit(']}')
        return
      }
      if (has(setSize, object)) {
        emit('{"$":"set","v":[')
        let first = true
        apply(setForEach, object, [
          (v: unknown) => {
            if (!first) emit(',')
            first = false
            path[path.length] = 'item'
            walk(v)
            path.length--
          },
        ])
        emit(']}')
        return
      }
      const typedName = apply(typedArrayTag, object, []) as string | undefined
      if (typedName !== undefined) {
        const length = apply(typedArrayLength, object, []) as number
        spend(length * 2 + 20)
        emit('{"$":' + quote(typedName) + ',"v":')
        walkList(length, (i) => walk((object as unknown as unknown[])[i]))
        emit('}')
        return
      }
      if (has(bufferByteLength, object)) {
        const view = new Uint8ArrayCtor(object as unknown as ArrayBuffer)
        const length = apply(typedArrayLength, view, []) as number
        spend(length * 2 + 20)
        emit('{"$":"ArrayBuffer","v":')
        walkList(length, (i) => emit(StringCtor(view[i])))
        emit('}')
        return
      }
      if (has(dataViewByteLength, object)) refuse('a DataView')
      if (has(regexpSource, object) && (object as unknown) !== regexpProto) refuse('a regular expression')
      if (has(weakMapHas, object, {}) || has(weakSetHas, object, {})) refuse('a WeakMap or WeakSet')
      if (proto === promiseProto) refuse('a Promise (await it first)')
      if (isError(object)) {
        const rawName = object.name
        const rawMessage = object.message
        const name = typeof rawName === 'string' ? rawName : 'Error'
        const message = typeof rawMessage === 'string' ? rawMessage : StringCtor(rawMessage)
        spend(name.length + message.length + 30)
        emit('{"$":"error","name":' + quote(name) + ',"message":' + quote(message) + '}')
        return
      }
      walkProperties(object)
    }

    function walkProperties(object: Record<string, unknown>): void {
      const names = keys(object)
      let escaped = false
      for (let i = 0; i < names.length; i++) if (names[i] === '$') escaped = true
      emit(escaped ? '{"$":"object","v":[' : '{')
      let first = true
      for (let i = 0; i < names.length; i++) {
        const key = names[i] as string
        const descriptor = describeProp(object, key)
        if (descriptor === undefined) continue
        path[path.length] = key
        // Only the descriptor's own fields: a missing `get` would be looked up on Object.prototype.
        if (!isData(descriptor)) refuse('a getter or setter property')
        spend(key.length + 4)
        if (!first) emit(',')
        first = false
        emit(escaped ? '[' + quoteKey(key) + ',' : quoteKey(key) + ':')
        walk(descriptor.value)
        if (escaped) emit(']')
        path.length--
      }
      emit(escaped ? ']}' : '}')
    }

    walk(value)
    chunks[chunks.length] = joined(parts)
    const wire = chunks.length === 1 ? (chunks[0] as string) : joined(chunks)
    if (wire.length > budget) limitError(what, budget)
    return wire
  }

  /**
   * Decodes in place what JSON.parse made: its arrays and objects hold every element and key as
   * an own data property, so writing the decoded value back defines nothing new and never reaches
   * a prototype (a fresh array's `out[i] = …` would meet an accessor on Array.prototype).
   */
  function decodeTree(tree: unknown, depth = 0): unknown {
    if (typeof tree !== 'object' || tree === null) return tree
    if (depth > MAX_DEPTH + 2) throw new TypeErrorCtor('value is nested too deeply')
    // Only containers can change: a primitive is left where JSON.parse put it, unwritten.
    if (isArray(tree)) {
      for (let i = 0; i < tree.length; i++) {
        const item: unknown = tree[i]
        if (typeof item === 'object' && item !== null) tree[i] = decodeTree(item, depth + 1)
      }
      return tree
    }
    const node = tree as Record<string, unknown>
    if (!(apply(hasOwn, node, TAG_KEY) as boolean)) {
      const names = keys(node)
      for (let i = 0; i < names.length; i++) {
        const key = names[i] as string
        const child = node[key]
        if (typeof child === 'object' && child !== null) node[key] = decodeTree(child, depth + 1)
      }
      return node
    }
    return decodeTagged(node.$, own(node, 'v'), node, depth)
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
          defineProperty(out, entry[0], dataDescriptor(decodeTree(entry[1], depth + 1), true))
        }
        return out
      }
      case 'error': {
        const rawName = own(node, 'name')
        const rawMessage = own(node, 'message')
        const name = typeof rawName === 'string' ? rawName : 'Error'
        const message = typeof rawMessage === 'string' ? rawMessage : ''
        const Ctor = errorCtors[name] ?? ErrorCtor
        const error = new Ctor(message)
        if (Ctor === ErrorCtor && name !== 'Error') defineProperty(error, 'name', dataDescriptor(name, false))
        return error
      }
      case 'ArrayBuffer': {
        if (!isArray(v)) return badWire()
        const bytes = new Uint8ArrayCtor(v.length)
        for (let i = 0; i < v.length; i++) bytes[i] = v[i] as number
        return apply(typedArrayBuffer, bytes, [])
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
        if (typedNames[i] === tag) throw new TypeErrorCtor(tag + ' is not available in this engine')
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
    decodeTrusted(wire: string): unknown {
      // The codec writes every tag and escape as an object whose first key is `$`, and `{"$"`
      // occurs nowhere else in its text (a quote inside a string is escaped). Depth: the writer
      // refused anything past MAX_DEPTH. One native scan instead of an interpreted walk.
      const tree = jsonParse(wire)
      return (apply(stringIndexOf, wire, TAG_OPENING) as number) < 0 ? tree : decodeTree(tree)
    },
    decodeTree(tree: unknown): unknown {
      return decodeTree(tree)
    },
    isError,
  }
}
