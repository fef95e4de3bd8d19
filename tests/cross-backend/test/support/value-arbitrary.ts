/**
 * Random values of cordon's value model, each with JavaScript source that builds the same value
 * inside a guest. The same sample is sent in as a global, returned from a tool, and built by the
 * guest, so one run checks host→guest, guest→host (tool arguments and the result) and the
 * guest's own encoder on every engine.
 */
import fc from 'fast-check'

export interface Sample {
  value: unknown
  /** A JavaScript expression that evaluates to an equal value. */
  source: string
}

const sample = (value: unknown, source: string): Sample => ({ value, source })

const numberSource = (n: number): string =>
  Object.is(n, -0) ? '-0' : Number.isNaN(n) ? 'NaN' : n === Infinity ? 'Infinity' : n === -Infinity ? '-Infinity' : String(n)

// Strings of any UTF-16 code units: lone surrogates, NUL, line separators, astral characters.
const anyString = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 12 })
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 6 }), anyString)
// Keys that stress the object encoding: `$` (the tag key), `__proto__`, integer-like keys (reordered by engines), ''.
const key = fc.oneof(fc.constantFrom('$', '__proto__', 'v', '0', '10', '2', '', 'constructor', 'toString'), fc.string({ maxLength: 6 }))

const leaf: fc.Arbitrary<Sample> = fc.oneof(
  fc.constant(sample(undefined, 'undefined')),
  fc.constant(sample(null, 'null')),
  fc.boolean().map((b) => sample(b, String(b))),
  fc.double().map((n) => sample(n, numberSource(n))),
  fc.integer().map((n) => sample(n, String(n))),
  fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }).map((n) => sample(n, `${n}n`)),
  text.map((s) => sample(s, JSON.stringify(s))),
  fc.date({ noInvalidDate: false }).map((d) => sample(d, `new Date(${numberSource(d.getTime())})`)),
  errorSample(),
  typedArraySample(),
  fc.uint8Array({ maxLength: 8 }).map((bytes) => sample(bytes.buffer, `new Uint8Array([${bytes.join(', ')}]).buffer`)),
)

function errorSample(): fc.Arbitrary<Sample> {
  const ctor = fc.constantFrom('Error', 'TypeError', 'RangeError', 'SyntaxError', 'ReferenceError', 'EvalError', 'URIError')
  return fc
    .tuple(ctor, fc.option(fc.constantFrom('CustomError', 'AbortError', ''), { nil: undefined }), text)
    .map(([type, name, message]) => {
      const error = new (globalThis as unknown as Record<string, ErrorConstructor>)[type]!(message)
      if (name !== undefined) error.name = name
      const build = `new ${type}(${JSON.stringify(message)})`
      return sample(error, name === undefined ? build : `Object.assign(${build}, { name: ${JSON.stringify(name)} })`)
    })
}

function typedArraySample(): fc.Arbitrary<Sample> {
  const of = <T extends { length: number }>(name: string, arb: fc.Arbitrary<T>, item: (x: never) => string) =>
    arb.map((array) => sample(array, `new ${name}([${Array.from(array as unknown as ArrayLike<never>, item).join(', ')}])`))
  const n = (x: number) => numberSource(x)
  const b = (x: bigint) => `${x}n`
  return fc.oneof(
    of('Int8Array', fc.int8Array({ maxLength: 6 }), n),
    of('Uint8Array', fc.uint8Array({ maxLength: 6 }), n),
    of('Uint8ClampedArray', fc.uint8ClampedArray({ maxLength: 6 }), n),
    of('Int16Array', fc.int16Array({ maxLength: 6 }), n),
    of('Uint16Array', fc.uint16Array({ maxLength: 6 }), n),
    of('Int32Array', fc.int32Array({ maxLength: 6 }), n),
    of('Uint32Array', fc.uint32Array({ maxLength: 6 }), n),
    of('Float32Array', fc.float32Array({ maxLength: 6 }), n),
    of('Float64Array', fc.float64Array({ maxLength: 6 }), n),
    of('BigInt64Array', fc.bigInt64Array({ maxLength: 6 }), b),
    of('BigUint64Array', fc.bigUint64Array({ maxLength: 6 }), b),
  )
}

/** Objects are built with defineProperty (and computed keys in source) so `__proto__` stays an own key. */
function objectOf(entries: [string, Sample][]): Sample {
  const value: Record<string, unknown> = {}
  for (const [k, s] of entries) Object.defineProperty(value, k, { value: s.value, enumerable: true, writable: true, configurable: true })
  return sample(value, `({ ${entries.map(([k, s]) => `[${JSON.stringify(k)}]: ${s.source}`).join(', ')} })`)
}

export const valueSample: fc.Arbitrary<Sample> = fc.letrec<{ node: Sample }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('node'), { maxLength: 5 }).map((items) =>
      sample(
        items.map((s) => s.value),
        `[${items.map((s) => s.source).join(', ')}]`,
      ),
    ),
    // Holes: the value model turns them into undefined.
    fc
      .array(tie('node'), { maxLength: 3 })
      // eslint-disable-next-line no-sparse-arrays -- a hole first, as the source text says
      .map((items) => sample([, ...items.map((s) => s.value)], `[, ${items.map((s) => s.source).join(', ')}]`)),
    fc.uniqueArray(fc.tuple(key, tie('node')), { maxLength: 5, selector: ([k]) => k }).map(objectOf),
    fc
      .array(fc.tuple(tie('node'), tie('node')), { maxLength: 4 })
      .map((pairs) =>
        sample(
          new Map(pairs.map(([k, v]) => [k.value, v.value])),
          `new Map([${pairs.map(([k, v]) => `[${k.source}, ${v.source}]`).join(', ')}])`,
        ),
      ),
    fc
      .array(tie('node'), { maxLength: 4 })
      .map((items) => sample(new Set(items.map((s) => s.value)), `new Set([${items.map((s) => s.source).join(', ')}])`)),
  ),
})).node
