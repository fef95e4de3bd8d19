/**
 * The value codec's fast path: plain JSON data (plain objects and arrays of strings, booleans,
 * null and finite numbers other than -0) is written by the engine's own JSON.stringify, which
 * writes exactly the text the codec's walk would, in a fraction of its time.
 *
 * A check walks the value first, in the order the codec's walk does, and gives up (the codec then
 * walks the value as before, refusals, paths and limits included) on anything else: a tagged or
 * escaped value, an accessor, a hole, a cycle, nesting past MAX_DEPTH, an object that is not a
 * plain one (a boxed primitive or JSON.rawJSON record moved onto Object.prototype or null), or a
 * size the codec's walk would count over the budget. The check reads own data properties only:
 * no getter, toJSON or toString of the value runs; nor does one during JSON.stringify, because a
 * checked value has none left to call and the realm's prototypes are checked for toJSON first.
 * A Proxy still runs its traps, in the check and again in JSON.stringify, as the walk runs them.
 *
 * Self-contained: it is stringified into guest engines with the codec (no imports, no template
 * literals). Intrinsics come from the captured primordials.
 */
import type { Primordials } from './primordials.js'

export interface PlainJson {
  /** `value` as the codec's wire text if it is plain JSON data within `budget`; otherwise undefined. */
  write(value: object, budget: number): string | undefined
}

export function createPlainJson(p: Primordials): PlainJson {
  'use strict'
  const MAX_DEPTH = 1000
  const ZERO = [0]
  const {
    apply,
    keys,
    ownKeys,
    list,
    stringCharCodeAt,
    getPrototypeOf: getProto,
    getOwnPropertyDescriptor: describeProp,
    isArray,
    isFiniteNumber,
    jsonStringify,
    objectPrototype: objectProto,
    arrayPrototype: arrayProto,
    toStringTagSymbol,
    lookupGetter,
    objectToString,
    jsonIsRawJSON,
  } = p
  type Call = (self: unknown, arg?: unknown) => unknown
  // `ownGetter(o, k)` is `o.__lookupGetter__(k)` bound to the captured originals: it finds an
  // accessor without running it (undefined for a data property or none), and a bound call is
  // cheaper than Reflect.apply's argument list in QuickJS's interpreter.
  const uncurry = (fn: unknown): Call => apply(p.functionBind, p.functionCall, [fn]) as Call
  const ownGetter = typeof lookupGetter === 'function' ? uncurry(lookupGetter) : undefined
  const tagOf = uncurry(objectToString)
  const isRawJson = typeof jsonIsRawJSON === 'function' ? jsonIsRawJSON : undefined

  /** Objects on the path to the one being checked: a cycle gives up, as the walk refuses it. */
  const stack: object[] = list()
  let used = 0
  let budget = 0

  /** Whether `proto` has an own array index (an own key list begins with its indices). */
  function hasIndexKey(proto: object): boolean {
    const first = ownKeys(proto)[0]
    const code = typeof first === 'string' ? (apply(stringCharCodeAt, first, ZERO) as number) : NaN
    return code >= 48 && code <= 57
  }

  /**
   * Whether JSON.stringify would look up no toJSON and Object.prototype.toString read no tag, and
   * whether an engine that keeps JSON.stringify's work stack in an ordinary array (QuickJS) would
   * meet no accessor or value the guest put at an index of Array.prototype or Object.prototype.
   */
  function realmIsClean(): boolean {
    return (
      describeProp(objectProto, 'toJSON') === undefined &&
      describeProp(arrayProto, 'toJSON') === undefined &&
      getProto(arrayProto) === objectProto &&
      describeProp(objectProto, toStringTagSymbol) === undefined &&
      !hasIndexKey(arrayProto) &&
      !hasIndexKey(objectProto)
    )
  }

  /** Whether `value` is plain JSON data, counted as the codec's walk counts it (its `spend`). */
  function check(value: unknown, depth: number): boolean {
    if (typeof value !== 'object') {
      if (typeof value === 'string') used += value.length + 2
      else if (typeof value === 'number') {
        if (!isFiniteNumber(value) || (value === 0 && 1 / value < 0)) return false
        used += 8
      } else if (typeof value === 'boolean') used += 5
      else return false
      return used <= budget
    }
    if (value === null) {
      used += 4
      return used <= budget
    }
    if (depth >= MAX_DEPTH) return false
    for (let i = 0; i < depth; i++) if (stack[i] === value) return false
    used += 2
    if (used > budget) return false
    stack[depth] = value
    const proto = getProto(value) as object | null
    if (isArray(value)) {
      const items = value as unknown[]
      const length = items.length
      if (proto !== arrayProto || length > budget - used) return false
      for (let i = 0; i < length; i++) {
        // A hole or an accessor (own, or on the prototypes a hole reads through) gives up unread.
        if ((ownGetter as Call)(items, i) !== undefined || !check(items[i], depth + 1)) return false
      }
      return true
    }
    if ((proto !== objectProto && proto !== null) || !isPlainRecord(value, proto)) return false
    const names = keys(value)
    for (let i = 0; i < names.length; i++) {
      const key = names[i] as string
      // `$` is escaped by the walk, and an accessor refused by it (a setter alone reads undefined).
      if (key === '$' || (ownGetter as Call)(value, key) !== undefined) return false
      used += key.length + 4
      if (!check((value as Record<string, unknown>)[key], depth + 1)) return false
    }
    return true
  }

  /** Not an exotic object that JSON.stringify writes as a primitive or raw text. */
  function isPlainRecord(object: object, proto: object | null): boolean {
    if (describeProp(object, toStringTagSymbol) !== undefined || tagOf(object) !== '[object Object]') return false
    return proto !== null || isRawJson === undefined || isRawJson(object) !== true
  }

  return {
    write(value: object, limit: number): string | undefined {
      if (ownGetter === undefined || !realmIsClean()) return undefined
      used = 0
      budget = limit
      stack.length = 0
      try {
        if (!check(value, 0)) return undefined
        const wire = jsonStringify(value) as unknown
        return typeof wire === 'string' ? wire : undefined
      } catch {
        // A Proxy's trap threw, or changed the value under JSON.stringify: the walk decides.
        return undefined
      } finally {
        stack.length = 0
      }
    },
  }
}
