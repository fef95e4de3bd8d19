/**
 * A guest value (cordon's value model is wider than JSON) as plain JSON data for the result
 * text. `undefined` and non-finite numbers become null, BigInt its decimal string, a Date its
 * ISO string, a Map a list of [key, value] pairs, Sets and typed arrays lists, an error
 * `{ name, message }`. The value came through cordon's decoder, so it holds no getters,
 * proxies or cycles.
 */
export function jsonValue(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      return Number.isFinite(value) ? value + 0 : null // `+ 0` turns -0 into 0
    case 'bigint':
      return value.toString()
    case 'object':
      return value === null ? null : objectValue(value)
    default:
      return null
  }
}

function objectValue(value: object): unknown {
  if (Array.isArray(value)) return value.map(jsonValue)
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString()
  if (value instanceof Map) return [...value].map(([key, item]) => [jsonValue(key), jsonValue(item)])
  if (value instanceof Set) return [...value].map(jsonValue)
  if (value instanceof ArrayBuffer) return [...new Uint8Array(value)]
  if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<number | bigint>, jsonValue)
  if (value instanceof Error) return { name: value.name, message: value.message }
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    // defineProperty: a `__proto__` key from the guest stays an ordinary key.
    if (item !== undefined)
      Object.defineProperty(out, key, { value: jsonValue(item), enumerable: true, writable: true, configurable: true })
  }
  return out
}
