/**
 * Formats console arguments the way Node's console does (util.format / util.inspect
 * with default options), closely enough that logs read the same; identical on every
 * backend because it runs inside the guest. Differences from Node, on purpose: errors
 * print as `Name: message` without a stack (stacks differ per engine and mostly show
 * sandbox frames), promises print as `Promise {}` (their state is not observable).
 *
 * Self-contained: it is stringified into guest engines.
 */
import type { Primordials } from './primordials.js'

export interface Inspect {
  format(args: unknown[]): string
  inspect(value: unknown): string
}

export function createInspect(p: Primordials): Inspect {
  'use strict'
  const {
    apply,
    ownKeys,
    getPrototypeOf: getProto,
    getOwnPropertyDescriptor: describeProp,
    isArray,
    StringCtor,
    NumberCtor,
    parseInt: parseIntFn,
    parseFloat: parseFloatFn,
    jsonStringify,
    functionToString: fnToString,
    symbolToString,
    dateGetTime,
    dateToISOString: dateToISO,
    mapSize,
    mapForEach,
    setSize,
    setForEach,
    typedArrayTag,
    arrayBufferByteLength: bufferByteLength,
    regexpToString,
    regexpSource,
    regexpPrototype: regexpProto,
    errorPrototype: errorProto,
    objectPrototype: objectProto,
    stringSlice,
    stringIndexOf,
    stringCharCodeAt: charCodeAt,
    typedArrayLength,
    list,
    isData,
    dataValue,
  } = p
  const MAX_DEPTH = 2
  const MAX_ITEMS = 100
  // Indices of one array looked at before the rest is summed up: a sparse `new Array(2 ** 32 - 1)`
  // would otherwise cost billions of steps for one log line (Node asks V8 for the keys instead).
  const MAX_PROBES = 10_000
  const MAX_STRING = 10_000
  const BREAK_LENGTH = 72

  function has(brand: Function, value: unknown): boolean {
    try {
      apply(brand, value, [])
      return true
    } catch {
      return false
    }
  }

  function isIdentifier(key: string): boolean {
    if (key.length === 0) return false
    for (let i = 0; i < key.length; i++) {
      const c = apply(charCodeAt, key, [i]) as number
      const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36
      const digit = c >= 48 && c <= 57
      if (!letter && !(digit && i > 0)) return false
    }
    return true
  }

  function quote(text: string): string {
    let body = text
    if (body.length > MAX_STRING) {
      const rest = body.length - MAX_STRING
      body = apply(stringSlice, body, [0, MAX_STRING]) as string
      return quote(body) + '... ' + rest + ' more character' + (rest > 1 ? 's' : '')
    }
    let out = "'"
    for (let i = 0; i < body.length; i++) {
      const ch = body[i] as string
      if (ch === "'") out += "\\'"
      else if (ch === '\\') out += '\\\\'
      else if (ch === '\n') out += '\\n'
      else if (ch === '\r') out += '\\r'
      else if (ch === '\t') out += '\\t'
      else out += ch
    }
    return out + "'"
  }

  // Plain operators rather than Object.is and String: a number's conversion runs no guest code,
  // and each native call costs in an interpreter (this is on every logged number).
  function formatNumber(n: number): string {
    return n === 0 && 1 / n < 0 ? '-0' : '' + n
  }

  function isErrorLike(value: object): boolean {
    let proto: unknown = value
    for (let i = 0; i < 64 && proto !== null; i++) {
      proto = getProto(proto)
      if (proto === errorProto) return true
    }
    return false
  }

  function constructorName(value: object): string | null {
    let proto: unknown
    try {
      proto = getProto(value)
    } catch {
      return null
    }
    if (proto === null) return null
    const ctor = dataValue(describeProp(proto, 'constructor'))
    if (typeof ctor === 'function') {
      const name = dataValue(describeProp(ctor, 'name'))
      if (typeof name === 'string' && name !== '') return name
    }
    return ''
  }

  function functionLabel(fn: Function): string {
    let source = ''
    try {
      source = apply(fnToString, fn, []) as string
    } catch {
      // A revoked Proxy or a guest function whose source cannot be read: no source, then.
    }
    const nameValue = dataValue(describeProp(fn, 'name'))
    const name = typeof nameValue === 'string' ? nameValue : ''
    if (apply(stringSlice, source, [0, 6]) === 'class ' || source === 'class') return name ? '[class ' + name + ']' : '[class (anonymous)]'
    const kind = apply(stringSlice, source, [0, 6]) === 'async ' ? 'AsyncFunction' : 'Function'
    return name ? '[' + kind + ': ' + name + ']' : '[' + kind + ' (anonymous)]'
  }

  function join(items: string[], open: string, close: string, indent: string): string {
    if (items.length === 0) return open + close
    let total = open.length + close.length
    let multiline = false
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as string
      total += item.length + 2
      for (let j = 0; j < item.length; j++) if (item[j] === '\n') multiline = true
    }
    if (!multiline && total + indent.length <= BREAK_LENGTH) {
      let out = open + ' '
      for (let i = 0; i < items.length; i++) out += (i > 0 ? ', ' : '') + items[i]
      return out + ' ' + close
    }
    const inner = indent + '  '
    let out = open + '\n'
    for (let i = 0; i < items.length; i++) out += inner + items[i] + (i < items.length - 1 ? ',' : '') + '\n'
    return out + indent + close
  }

  function formatKey(key: string | symbol): string {
    if (typeof key === 'symbol') return '[' + apply(symbolToString, key, []) + ']'
    return isIdentifier(key) ? key : quote(key)
  }

  function propertyEntries(value: object, seen: object[], depth: number, indent: string, skipIndices: boolean): string[] {
    const out: string[] = list()
    const names = ownKeys(value)
    for (let i = 0; i < names.length; i++) {
      const key = names[i] as string | symbol
      const descriptor = describeProp(value, key)
      if (!descriptor || !descriptor.enumerable) continue
      const dataProperty = isData(descriptor)
      if (skipIndices && typeof key === 'string' && isIndex(key)) continue
      if (out.length >= MAX_ITEMS) {
        out[out.length] = '...'
        break
      }
      let rendered: string
      if (dataProperty) rendered = inner(descriptor.value, seen, depth + 1, indent + '  ')
      else if (descriptor.get && descriptor.set) rendered = '[Getter/Setter]'
      else if (descriptor.get) rendered = '[Getter]'
      else rendered = '[Setter]'
      out[out.length] = formatKey(key) + ': ' + rendered
    }
    return out
  }

  function isIndex(key: string): boolean {
    if (key.length === 0 || key.length > 10) return false
    for (let i = 0; i < key.length; i++) {
      const c = apply(charCodeAt, key, [i]) as number
      if (c < 48 || c > 57) return false
    }
    return key === '0' || key[0] !== '0'
  }

  function inner(value: unknown, seen: object[], depth: number, indent: string): string {
    switch (typeof value) {
      case 'string':
        return quote(value)
      case 'number':
        return formatNumber(value)
      case 'bigint':
        return StringCtor(value) + 'n'
      case 'boolean':
      case 'undefined':
        return StringCtor(value)
      case 'symbol':
        return apply(symbolToString, value, []) as string
      case 'function':
        return functionLabel(value)
    }
    if (value === null) return 'null'
    const object = value as object
    for (let i = 0; i < seen.length; i++) if (seen[i] === object) return '[Circular]'
    seen[seen.length] = object
    try {
      return describeObject(object, seen, depth, indent)
    } finally {
      seen.length--
    }
  }

  function describeObject(object: object, seen: object[], depth: number, indent: string): string {
    const name = constructorName(object)
    // Plain objects (most logged values) skip the brand checks, each of which throws for them;
    // an exotic object other than an array moved onto Object.prototype or null is shown by its
    // own properties.
    const proto = getProto(object)
    if ((proto === objectProto || proto === null) && !isArray(object)) return plainObject(object, name, seen, depth, indent)
    if (has(dateGetTime, object)) {
      const time = apply(dateGetTime, object, []) as number
      return time === time ? (apply(dateToISO, object, []) as string) : 'Invalid Date'
    }
    if (has(regexpSource, object) && object !== regexpProto) return apply(regexpToString, object, []) as string
    if (isErrorLike(object)) {
      const e = object as { name?: unknown; message?: unknown }
      const errorName = typeof e.name === 'string' ? e.name : 'Error'
      const message = typeof e.message === 'string' ? e.message : ''
      const head = message ? errorName + ': ' + message : errorName
      const extra = depth > MAX_DEPTH ? list<string>() : propertyEntries(object, seen, depth, indent, false)
      return extra.length ? head + ' ' + join(extra, '{', '}', indent) : head
    }
    if (isArray(object)) {
      if (depth > MAX_DEPTH) return '[Array]'
      const items: string[] = list()
      const length = (object as unknown[]).length
      let holes = 0
      const flushHoles = () => {
        if (holes > 0) items[items.length] = '<' + holes + ' empty item' + (holes > 1 ? 's' : '') + '>'
        holes = 0
      }
      for (let i = 0; i < length; i++) {
        if (items.length >= MAX_ITEMS || i >= MAX_PROBES) {
          flushHoles()
          items[items.length] = '... ' + (length - i) + ' more item' + (length - i > 1 ? 's' : '')
          break
        }
        if (!describeProp(object, i)) {
          holes++
          continue
        }
        flushHoles()
        items[items.length] = inner((object as unknown[])[i], seen, depth + 1, indent + '  ')
      }
      flushHoles()
      // Named properties are found by listing every key, indices included: past MAX_PROBES that
      // list is what the guest's array costs again, so long arrays show their items only.
      const extra = length <= MAX_PROBES ? propertyEntries(object, seen, depth, indent, true) : list<string>()
      for (let i = 0; i < extra.length; i++) items[items.length] = extra[i] as string
      const prefix = name === 'Array' ? '' : (name ?? '[Array: null prototype]') + '(' + length + ') '
      return prefix + join(items, '[', ']', indent)
    }
    if (has(mapSize, object)) {
      const size = apply(mapSize, object, []) as number
      if (depth > MAX_DEPTH) return '[Map]'
      const items: string[] = list()
      apply(mapForEach, object, [
        (v: unknown, k: unknown) => {
          if (items.length < MAX_ITEMS)
            items[items.length] = inner(k, seen, depth + 1, indent + '  ') + ' => ' + inner(v, seen, depth + 1, indent + '  ')
        },
      ])
      if (size > MAX_ITEMS) items[items.length] = '... ' + (size - MAX_ITEMS) + ' more items'
      return (name || 'Map') + '(' + size + ') ' + join(items, '{', '}', indent)
    }
    if (has(setSize, object)) {
      const size = apply(setSize, object, []) as number
      if (depth > MAX_DEPTH) return '[Set]'
      const items: string[] = list()
      apply(setForEach, object, [
        (v: unknown) => {
          if (items.length < MAX_ITEMS) items[items.length] = inner(v, seen, depth + 1, indent + '  ')
        },
      ])
      if (size > MAX_ITEMS) items[items.length] = '... ' + (size - MAX_ITEMS) + ' more items'
      return (name || 'Set') + '(' + size + ') ' + join(items, '{', '}', indent)
    }
    const typed = apply(typedArrayTag, object, []) as string | undefined
    if (typed !== undefined) {
      const view = object as unknown as ArrayLike<number | bigint>
      const items: string[] = list()
      const length = apply(typedArrayLength, view, []) as number
      for (let i = 0; i < length && i < MAX_ITEMS; i++) {
        const item = view[i]
        items[items.length] = typeof item === 'bigint' ? StringCtor(item) + 'n' : formatNumber(item as number)
      }
      if (length > MAX_ITEMS) items[items.length] = '... ' + (length - MAX_ITEMS) + ' more items'
      return typed + '(' + length + ') ' + join(items, '[', ']', indent)
    }
    if (has(bufferByteLength, object)) {
      return 'ArrayBuffer { byteLength: ' + (apply(bufferByteLength, object, []) as number) + ' }'
    }
    return plainObject(object, name, seen, depth, indent)
  }

  function plainObject(object: object, name: string | null, seen: object[], depth: number, indent: string): string {
    if (depth > MAX_DEPTH) return name ? '[' + name + ']' : '[Object: null prototype]'
    const entries = propertyEntries(object, seen, depth, indent, false)
    let prefix = ''
    if (name === null) prefix = '[Object: null prototype] '
    else if (name !== 'Object' || getProto(object) !== objectProto) prefix = name ? name + ' ' : ''
    if (entries.length === 0 && prefix !== '') return prefix + '{}'
    return prefix + join(entries, '{', '}', indent)
  }

  /** What `inner` is given as `seen` for a primitive, which it never reads: no list made per argument. */
  const NOTHING_SEEN: object[] = list()

  function inspect(value: unknown): string {
    return inner(value, typeof value === 'object' && value !== null ? list() : NOTHING_SEEN, 0, '')
  }

  function formatWithSpecifiers(template: string, args: unknown[]): { text: string; used: number } {
    // Most first arguments have no specifier: skip the walk over their characters (interpreted in QuickJS).
    if ((apply(stringIndexOf, template, ['%']) as number) < 0) return { text: template, used: 1 }
    let out = ''
    let used = 1
    let i = 0
    while (i < template.length) {
      const ch = template[i] as string
      if (ch !== '%' || i + 1 >= template.length) {
        out += ch
        i++
        continue
      }
      const next = template[i + 1] as string
      if (next === '%') {
        out += '%'
        i += 2
        continue
      }
      if ((apply(stringIndexOf, 'sdifjoOc', [next]) as number) < 0 || used >= args.length) {
        out += ch
        i++
        continue
      }
      const arg = args[used++]
      if (next === 's')
        out +=
          typeof arg === 'string'
            ? arg
            : typeof arg === 'bigint'
              ? StringCtor(arg) + 'n'
              : typeof arg === 'object' && arg !== null
                ? inspect(arg)
                : StringCtor(arg)
      else if (next === 'd')
        out += typeof arg === 'bigint' ? StringCtor(arg) + 'n' : typeof arg === 'object' ? 'NaN' : formatNumber(NumberCtor(arg))
      else if (next === 'i') out += typeof arg === 'bigint' ? StringCtor(arg) + 'n' : formatNumber(parseIntFn(StringCtor(arg)))
      else if (next === 'f') out += formatNumber(parseFloatFn(StringCtor(arg)))
      else if (next === 'j') {
        try {
          out += jsonStringify(arg)
        } catch {
          out += '[Circular]'
        }
      } else if (next === 'c') out += ''
      else out += inspect(arg)
      i += 2
    }
    return { text: out, used }
  }

  const PERCENT = ['%']

  /**
   * What `format` gives for the common line of strings and numbers whose first string has no
   * specifier, without its general path (most of a console call in an interpreter); undefined
   * for anything else.
   */
  function plainLine(args: unknown[]): string | undefined {
    let out = ''
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]
      let text: string
      if (typeof arg === 'number') text = formatNumber(arg)
      else if (typeof arg !== 'string') return undefined
      else if (i === 0 && args.length > 1 && (apply(stringIndexOf, arg, PERCENT) as number) >= 0) return undefined
      else text = arg
      out = i === 0 ? text : out + ' ' + text
    }
    return out
  }

  function format(args: unknown[]): string {
    const plain = plainLine(args)
    if (plain !== undefined) return plain
    let out = ''
    let start = 0
    if (typeof args[0] === 'string' && args.length > 1) {
      const formatted = formatWithSpecifiers(args[0], args)
      out = formatted.text
      start = formatted.used
    } else if (typeof args[0] === 'string') {
      return args[0]
    }
    for (let i = start; i < args.length; i++) {
      const arg = args[i]
      const text = typeof arg === 'string' ? arg : inspect(arg)
      out += out === '' && i === 0 ? text : ' ' + text
    }
    return out
  }

  return { format, inspect }
}
