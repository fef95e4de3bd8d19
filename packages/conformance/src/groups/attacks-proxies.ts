/**
 * Proxy and Symbol attacks: hooks the engine or the runtime calls with arguments it made
 * itself (argument lists, inspect options, prototypes), where a host-made object would
 * hand the guest the host's Function.
 */
import type { ConformanceCheck } from '../types.js'
import { attack } from './attacks-define.js'

/** `__trap(label)`: a callable Proxy whose apply trap probes the arguments list, `this` and target. */
const TRAP_SOURCE = `
const __trap = (label) => new Proxy(function () {}, {
  apply(target, self, args) { __probe(args, label + ' arguments list'); __probe(self, label + ' this'); for (const a of args) __probe(a, label + ' argument'); return 'x' },
  construct(target, args) { __probe(args, label + ' construct arguments'); return {} },
})
const __hostile = (label) => {
  const e = new Error('m')
  e.name = { toString: __trap(label + ' name.toString'), valueOf: __trap(label + ' name.valueOf'), [Symbol.toPrimitive]: __trap(label + ' name.toPrimitive') }
  e.message = { toString: __trap(label + ' message.toString'), [Symbol.toPrimitive]: __trap(label + ' message.toPrimitive') }
  return e
}
`

export const proxyAttacks: ConformanceCheck[] = [
  // vm2 GHSA-whpj-8f3w-67p5 (CVE-2023-32314): the host converted an error's `name` to a
  // string by calling a guest Proxy's apply trap with an arguments list made in the host
  // realm. Here such values go through every path that formats or copies a value.
  attack({
    name: 'Proxy apply traps as toString of error names and messages (vm2 GHSA-whpj-8f3w-67p5)',
    orFails: ['RUNTIME_ERROR'],
    body: `${TRAP_SOURCE}
try { __hostile('stack').stack } catch (e) { __probe(e, 'stack error') }
try { String(__hostile('String')) } catch (e) { __probe(e, 'String() error') }
console.log(__hostile('log'))
console.log('%s %d %i %f %o %O %j', __hostile('f1'), { valueOf: __trap('%d') }, { [Symbol.toPrimitive]: __trap('%i') }, { valueOf: __trap('%f') }, __hostile('%o'), __hostile('%O'), __hostile('%j'))
console.warn({ toString: __trap('object toString') }, [__hostile('in array')], new Map([[__hostile('map key'), 1]]))
try { await ns.tool(__hostile('tool arguments')) } catch (e) { __probe(e, 'tool arguments error') }
try { await ns.typed({ toString: __trap('schema input') }) } catch (e) { __probe(e, 'schema error') }
try { setTimeout(() => {}, { valueOf: __trap('timer delay') }) } catch (e) { __probe(e, 'timer error') }
try { clearTimeout({ valueOf: __trap('timer id') }) } catch (e) { __probe(e, 'clearTimeout error') }
if (__report()) return __report()
throw __hostile('uncaught')`,
  }),
  // vm2 GHSA-g644-9gfx-q4q4 (CVE-2023-37903) and GHSA-p5gc-c584-jj6v (CVE-2023-32313): Node's
  // util.inspect called a guest's custom inspect function with host `options` and `inspect`.
  attack({
    name: 'a custom inspect function receives only guest values (vm2 GHSA-g644-9gfx-q4q4, GHSA-p5gc-c584-jj6v)',
    body: `
const custom = Symbol.for('nodejs.util.inspect.custom')
const spy = (label) => ({ [custom](depth, options, inspect) {
  __probe(options, label + ' options'); __probe(inspect, label + ' inspect')
  if (options && typeof options === 'object') for (const k of Object.keys(options)) __probe(options[k], label + ' options.' + k)
  return 'spy'
} })
const proxy = new Proxy({}, { getPrototypeOf(t) { __probe(t, 'proxy target'); return null }, ownKeys(t) { return [] } })
console.log(spy('log'), [spy('nested')], new Map([[1, spy('map')]]), new Set([spy('set')]))
console.error(proxy, { proxy })
try { await ns.tool(spy('tool')) } catch (e) { __probe(e, 'tool arguments error') }
return __report()`,
  }),
  // vm2 GHSA-grj5-jjm8-h35p: `({}).__lookupGetter__('__proto__')` walked from a leaked object
  // up to host prototypes. Here every runtime-made object is walked with it, and its accessors
  // are looked up too.
  attack({
    name: '__lookupGetter__ prototype walks from runtime objects (vm2 GHSA-grj5-jjm8-h35p)',
    body: `
const protoOf = ({}).__lookupGetter__('__proto__')
const starts = [
  ['console', console], ['console.log', console.log], ['ns', ns], ['ns.tool', ns.tool], ['a tool promise', ns.tool()],
  ['setTimeout', setTimeout], ['queueMicrotask', queueMicrotask], ['globalThis', globalThis],
  ['a tool error', await ns.fail().catch((e) => e)], ['a schema error', await ns.typed(1).catch((e) => e)], ['a tool value', await ns.tool()],
]
for (const [label, start] of starts) {
  let x = start
  for (let depth = 0; depth < 8 && x !== null && x !== undefined; depth++) {
    __probe(x, label + ' ^' + depth)
    for (const key of Reflect.ownKeys(x)) {
      try { __probe(x.__lookupGetter__(key), label + ' getter ' + String(key)); __probe(x.__lookupSetter__(key), label + ' setter ' + String(key)) } catch (e) {}
    }
    try { x = protoOf.call(x) } catch (e) { break }
  }
}
return __report()`,
  }),
  // vm2 GHSA-647f-g98j-qq25 and GHSA-m283-3h24-438v (call/apply indirection): a fix was
  // bypassed by reaching host functions through replaced call/apply. Here the built-ins a
  // runtime could call are replaced by spies that probe their receiver and arguments, then
  // the program uses every runtime service.
  attack({
    name: 'built-ins the runtime might call are replaced by spies (vm2 GHSA-647f-g98j-qq25, GHSA-m283-3h24-438v)',
    body: `
let inSpy = false
const apply = Reflect.apply
const construct = Reflect.construct
const spy = (owner, key, label) => {
  const original = owner[key]
  if (typeof original !== 'function') return
  const replacement = function (...args) {
    if (!inSpy) {
      inSpy = true
      try { __probe(this, label + ' this'); for (const a of args) __probe(a, label + ' argument') } finally { inSpy = false }
    }
    return new.target ? construct(original, args, new.target) : apply(original, this, args)
  }
  try { Object.defineProperty(owner, key, { value: replacement, writable: true, configurable: true }) } catch (e) {}
}
const targets = [
  [Function.prototype, ['call', 'apply', 'bind', 'toString'], 'Function.prototype'],
  [Reflect, ['apply', 'construct', 'get', 'set', 'ownKeys', 'getOwnPropertyDescriptor', 'defineProperty'], 'Reflect'],
  [Object, ['keys', 'defineProperty', 'create', 'getPrototypeOf', 'getOwnPropertyNames', 'assign', 'freeze'], 'Object'],
  [Array.prototype, ['push', 'map', 'join', 'forEach', 'slice', 'concat', 'includes', 'indexOf'], 'Array.prototype'],
  [Promise.prototype, ['then', 'catch', 'finally'], 'Promise.prototype'],
  [Promise, ['resolve', 'reject', 'all'], 'Promise'],
  [JSON, ['stringify', 'parse'], 'JSON'],
  [String.prototype, ['slice', 'split', 'replace', 'charCodeAt', 'toString'], 'String.prototype'],
  [Map.prototype, ['forEach', 'entries', 'get', 'set'], 'Map.prototype'],
  [Symbol, ['for'], 'Symbol'],
]
for (const [owner, keys, label] of targets) for (const key of keys) spy(owner, key, label + '.' + key)
console.log('a', { b: [1, new Map([[1, 2]])] }, new Error('c'))
const value = await ns.tool({ list: [1, 2], when: new Date(0) })
try { await ns.fail() } catch (e) {}
try { await ns.typed(1) } catch (e) {}
await new Promise((resolve) => setTimeout(resolve, 1))
await new Promise((resolve) => queueMicrotask(resolve))
__probe(value, 'tool value')
return __report()`,
  }),
  // The Symbol hooks of ECMAScript (species, toPrimitive, iterator, hasInstance, toStringTag)
  // are called by built-ins with arguments they made; vm2's advisories used several of them.
  // Here they are set on values that came from tools and globals and then exercised.
  attack({
    name: 'Symbol hooks on values from tools and globals (vm2 Symbol/Proxy class, GHSA-whpj-8f3w-67p5)',
    options: () => ({ globals: { g: { list: [1, 2], map: new Map([[1, 2]]), bytes: new Uint8Array(4) } } }),
    body: `
const r = await ns.tool()
const hook = (label) => function (...args) { __probe(this, label + ' this'); for (const a of args) __probe(a, label + ' argument'); return undefined }
for (const [label, list] of [['tool list', r.list], ['global list', g.list]]) {
  list.constructor = { [Symbol.species]: function (n) { __probe(n, label + ' species length'); return [] } }
  try { list.map((x) => x); list.filter(Boolean); list.slice(0) } catch (e) { __probe(e, label + ' species error') }
}
for (const [label, x] of [['tool map', r.map], ['global map', g.map], ['global bytes', g.bytes], ['tool date', r.when], ['tool error', r.err]]) {
  try {
    Object.defineProperty(x, Symbol.iterator, { value: hook(label + ' iterator'), configurable: true })
    Object.defineProperty(x, Symbol.toPrimitive, { value: hook(label + ' toPrimitive'), configurable: true })
    Object.defineProperty(x, Symbol.toStringTag, { get: hook(label + ' toStringTag'), configurable: true })
    console.log(x)
    try { await ns.tool(x) } catch (e) { __probe(e, label + ' as tool arguments') }
    String(Object.prototype.toString.call(x))
  } catch (e) { __probe(e, label + ' error') }
}
try { g.bytes.constructor = { [Symbol.species]: hook('typed species') }; g.bytes.map((x) => x) } catch (e) { __probe(e, 'typed species error') }
Object.defineProperty(Object, Symbol.hasInstance, { value: hook('Object hasInstance'), configurable: true })
const out = { list: r.list, map: r.map }
out.list = [1]
return __report()`,
  }),
]
