/**
 * Renders any host value for a failure message: JSON-like, but showing what JSON hides
 * (undefined, NaN, -0, bigint, Map, Set, Date, Error, typed arrays) and safe on cycles.
 */
export function describeValue(value: unknown, maxLength = 300): string {
  const seen = new Set<object>()
  const text = render(value, seen, 0)
  return text.length > maxLength ? `${text.slice(0, maxLength)}…` : text
}

function render(value: unknown, seen: Set<object>, depth: number): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…(${value.length} chars)` : value)
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value)
    case 'bigint':
      return `${value}n`
    case 'undefined':
    case 'boolean':
      return String(value)
    case 'symbol':
      return value.toString()
    case 'function':
      return `[function ${value.name || 'anonymous'}]`
  }
  if (value === null) return 'null'
  const object = value as object
  if (seen.has(object)) return '[circular]'
  if (depth > 6) return '[…]'
  seen.add(object)
  try {
    return renderObject(object, seen, depth)
  } catch {
    return '[unreadable object]'
  } finally {
    seen.delete(object)
  }
}

function renderObject(object: object, seen: Set<object>, depth: number): string {
  const inner = (v: unknown) => render(v, seen, depth + 1)
  if (object instanceof Error) return `${object.name}(${JSON.stringify(object.message)})`
  if (object instanceof Date) return `Date(${Number.isNaN(object.getTime()) ? 'Invalid' : object.toISOString()})`
  if (object instanceof Map) return `Map{${[...object].map(([k, v]) => `${inner(k)} => ${inner(v)}`).join(', ')}}`
  if (object instanceof Set) return `Set{${[...object].map(inner).join(', ')}}`
  if (object instanceof ArrayBuffer) return `ArrayBuffer[${[...new Uint8Array(object)].join(', ')}]`
  if (ArrayBuffer.isView(object) && !(object instanceof DataView)) {
    return `${object.constructor.name}[${Array.from(object as unknown as ArrayLike<unknown>, inner).join(', ')}]`
  }
  if (Array.isArray(object)) return `[${object.map(inner).join(', ')}]`
  const proto: unknown = Object.getPrototypeOf(object)
  const prefix = proto === Object.prototype || proto === null ? '' : '(foreign object) '
  // Descriptors, not reads: a broken backend may hand over an object with getters.
  const entries = Object.keys(object).map((key) => {
    const descriptor = Object.getOwnPropertyDescriptor(object, key)
    const shown = descriptor === undefined || 'value' in descriptor ? inner(descriptor?.value) : '[accessor]'
    return `${JSON.stringify(key)}: ${shown}`
  })
  return `${prefix}{${entries.join(', ')}}`
}
