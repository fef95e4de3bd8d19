import { describeValue } from './describe-value.js'

/**
 * Asserts that a value that crossed into the host equals `expected` under the value
 * model, and is made of this realm's objects (a Map is `instanceof Map` here, a plain
 * object has this realm's `Object.prototype`): a backend must not hand out guest objects.
 */
export function expectSameValue(actual: unknown, expected: unknown, what: string): void {
  const problem = compare(actual, expected, '$')
  if (problem !== undefined) {
    throw new Error(`${what}: ${problem}\n  expected ${describeValue(expected)}\n  received ${describeValue(actual)}`)
  }
}

function compare(actual: unknown, expected: unknown, path: string): string | undefined {
  if (typeof expected !== 'object' || expected === null) {
    return Object.is(actual, expected) ? undefined : `${path} differs`
  }
  if (typeof actual !== 'object' || actual === null) return `${path} should be an object, got ${describeValue(actual)}`
  const expectedProto: unknown = Object.getPrototypeOf(expected)
  const actualProto: unknown = Object.getPrototypeOf(actual)
  if (expected instanceof Error) {
    if (!(actual instanceof Error)) return `${path} should be an Error of this realm`
    if (actual.name !== expected.name) return `${path}.name is ${describeValue(actual.name)}, not ${describeValue(expected.name)}`
    if (actual.message !== expected.message) return `${path}.message differs`
    return undefined
  }
  if (actualProto !== expectedProto) {
    return `${path} should have the prototype of a ${constructorName(expectedProto)} of this realm, got ${constructorName(actualProto)}`
  }
  if (expected instanceof Date) {
    return Object.is((actual as Date).getTime(), expected.getTime()) ? undefined : `${path} is another time`
  }
  if (expected instanceof ArrayBuffer) {
    return compareList([...new Uint8Array(actual as ArrayBuffer)], [...new Uint8Array(expected)], path)
  }
  if (ArrayBuffer.isView(expected)) {
    return compareList(Array.from(actual as ArrayLike<unknown>), Array.from(expected as unknown as ArrayLike<unknown>), path)
  }
  if (expected instanceof Map) {
    const a = [...(actual as Map<unknown, unknown>)]
    const e = [...expected]
    if (a.length !== e.length) return `${path} has ${a.length} entries, not ${e.length}`
    for (let i = 0; i < e.length; i++) {
      const problem =
        compare(a[i]?.[0], e[i]?.[0], `${path}.key(${i})`) ?? compare(a[i]?.[1], e[i]?.[1], `${path}.get(${describeValue(e[i]?.[0])})`)
      if (problem !== undefined) return problem
    }
    return undefined
  }
  if (expected instanceof Set) return compareList([...(actual as Set<unknown>)], [...expected], path)
  if (Array.isArray(expected)) return compareList(actual as unknown[], expected, path)
  return compareObject(actual, expected, path)
}

function compareList(actual: readonly unknown[], expected: readonly unknown[], path: string): string | undefined {
  if (actual.length !== expected.length) return `${path} has length ${actual.length}, not ${expected.length}`
  for (let i = 0; i < expected.length; i++) {
    const problem = compare(actual[i], expected[i], `${path}[${i}]`)
    if (problem !== undefined) return problem
  }
  return undefined
}

function compareObject(actual: object, expected: object, path: string): string | undefined {
  const actualKeys = Reflect.ownKeys(actual)
  const expectedKeys = Reflect.ownKeys(expected)
  if (actualKeys.some((key) => typeof key === 'symbol')) return `${path} has symbol keys`
  const missing = expectedKeys.filter((key) => !actualKeys.includes(key))
  const extra = actualKeys.filter((key) => !expectedKeys.includes(key))
  if (missing.length > 0 || extra.length > 0) {
    return `${path} keys differ (missing ${describeValue(missing.map(String))}, extra ${describeValue(extra.map(String))})`
  }
  for (const key of expectedKeys) {
    const descriptor = Object.getOwnPropertyDescriptor(actual, key)
    if (descriptor === undefined || !('value' in descriptor)) return `${path}.${String(key)} should be a data property`
    if (!descriptor.enumerable) return `${path}.${String(key)} should be enumerable`
    const problem = compare(descriptor.value, (expected as Record<PropertyKey, unknown>)[key], `${path}.${String(key)}`)
    if (problem !== undefined) return problem
  }
  return undefined
}

function constructorName(proto: unknown): string {
  if (proto === null) return 'null-prototype object'
  if (proto === Object.prototype) return 'plain object'
  try {
    const ctor = (proto as { constructor?: { name?: unknown } }).constructor
    const name = typeof ctor?.name === 'string' ? ctor.name : 'object'
    return ctor !== undefined && (globalThis as Record<string, unknown>)[name] === ctor ? name : `foreign ${name}`
  } catch {
    return 'unreadable prototype'
  }
}
