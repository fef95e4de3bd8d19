/**
 * A strict, printable form of a value in cordon's value model, for comparing values that came
 * back from different backends. `toStrictEqual` is not enough: it treats errors loosely and does
 * not tell a Float32Array from a Float64Array by content. Holes read as `undefined`, which is
 * what the value model makes of them.
 */
export type Canonical = string | number | boolean | null | Canonical[] | { [key: string]: Canonical }

export function canonical(value: unknown, seen: object[] = []): Canonical {
  switch (typeof value) {
    case 'undefined':
      return { $: 'undefined' }
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0) ? value : { $: 'number', v: Object.is(value, -0) ? '-0' : String(value) }
    case 'bigint':
      return { $: 'bigint', v: value.toString() }
    case 'string':
    case 'boolean':
      return value
    case 'function':
      return { $: 'function' }
    case 'symbol':
      return { $: 'symbol', v: String(value.description) }
  }
  if (value === null) return null
  const object = value as object
  if (seen.includes(object)) return { $: 'cycle' }
  const inner = [...seen, object]
  const walk = (v: unknown) => canonical(v, inner)
  if (Array.isArray(object)) return Array.from({ length: object.length }, (_, i) => walk((object as unknown[])[i]))
  if (object instanceof Date) return { $: 'date', v: Number.isNaN(object.getTime()) ? 'invalid' : object.getTime() }
  if (object instanceof Map) return { $: 'map', v: [...object].map(([k, v]) => [walk(k), walk(v)]) }
  if (object instanceof Set) return { $: 'set', v: [...object].map(walk) }
  if (ArrayBuffer.isView(object) && !(object instanceof DataView)) {
    const items = [...(object as unknown as Iterable<number | bigint>)]
    return { $: object.constructor.name, v: items.map(walk) }
  }
  if (object instanceof ArrayBuffer) return { $: 'ArrayBuffer', v: [...new Uint8Array(object)] }
  if (object instanceof Error) return { $: 'error', name: String(object.name), message: String(object.message) }
  // Tagged, so that a plain object such as { $: 'date' } cannot pass for a tag; entries in key order.
  return { $: 'object', v: Object.keys(object).map((key) => [key, walk((object as Record<string, unknown>)[key])]) }
}
