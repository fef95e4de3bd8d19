/**
 * Values the value model refuses, each placed at a random path inside ordinary containers, as a
 * host value and as guest source. Every backend must refuse them with the same error.
 */
import fc from 'fast-check'

export interface Poison {
  kind: string
  /** Builds the host value (fresh each time: a cycle or a Promise must not be shared). */
  host: () => unknown
  source: string
}

const POISONS: Poison[] = [
  { kind: 'function', host: () => () => 1, source: '(() => 1)' },
  { kind: 'symbol', host: () => Symbol('s'), source: 'Symbol("s")' },
  { kind: 'promise', host: () => Promise.resolve(1), source: 'Promise.resolve(1)' },
  { kind: 'weakmap', host: () => new WeakMap(), source: 'new WeakMap()' },
  { kind: 'weakset', host: () => new WeakSet(), source: 'new WeakSet()' },
  { kind: 'regexp', host: () => /x+/g, source: '/x+/g' },
  { kind: 'dataview', host: () => new DataView(new ArrayBuffer(2)), source: 'new DataView(new ArrayBuffer(2))' },
  {
    kind: 'getter',
    host: () => ({
      get g() {
        return 1
      },
    }),
    source: '({ get g() { return 1 } })',
  },
  {
    kind: 'cycle',
    host: () => {
      const o: Record<string, unknown> = { a: 1 }
      o.self = o
      return o
    },
    source: '(() => { const o = { a: 1 }; o.self = o; return o })()',
  },
]

type Step = { in: 'array'; index: number } | { in: 'object'; key: string } | { in: 'map-value'; key: string } | { in: 'set' }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ in: fc.constant('array' as const), index: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ in: fc.constant('object' as const), key: fc.constantFrom('a', 'items', '$', 'x y') }),
  fc.record({ in: fc.constant('map-value' as const), key: fc.constantFrom('k', 'v') }),
  fc.constant({ in: 'set' as const }),
)

export interface PlacedPoison {
  kind: string
  host: () => unknown
  source: string
}

/** Wraps the poison in containers, innermost first; siblings are plain data so the path is what matters. */
function place(poison: Poison, steps: Step[]): PlacedPoison {
  let host = poison.host
  let source = poison.source
  for (const s of steps) {
    const inner = host
    const innerSource = source
    switch (s.in) {
      case 'array':
        host = () => [...Array.from({ length: s.index }, (_, i) => i), inner()]
        source = `[${[...Array.from({ length: s.index }, (_, i) => String(i)), innerSource].join(', ')}]`
        break
      case 'object':
        host = () => ({ ok: true, [s.key]: inner() })
        source = `({ ok: true, [${JSON.stringify(s.key)}]: ${innerSource} })`
        break
      case 'map-value':
        host = () => new Map([[s.key, inner()]])
        source = `new Map([[${JSON.stringify(s.key)}, ${innerSource}]])`
        break
      case 'set':
        host = () => new Set(['first', inner()])
        source = `new Set(['first', ${innerSource}])`
        break
    }
  }
  return { kind: poison.kind, host, source }
}

export const placedPoison: fc.Arbitrary<PlacedPoison> = fc
  .tuple(fc.constantFrom(...POISONS), fc.array(step, { maxLength: 4 }))
  .map(([poison, steps]) => place(poison, steps))
