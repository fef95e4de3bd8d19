/**
 * Ways a guest rewrites its own realm before it returns, logs, throws or calls a tool. Each
 * source runs first in the guest program. Every accessor and replacement reports itself through
 * `__seen(what)` (defined by POISON_PRELUDE), which logs one line: a program that never touches
 * the poisoned built-ins itself must log nothing extra, so any extra line is cordon's own
 * machinery reaching into what the guest rewrote.
 */

/** Defines `__seen`, which logs at most once per call chain (a poisoned logger must not recurse). */
export const POISON_PRELUDE = `
let __busy = false
const __seen = (what) => {
  if (__busy) return
  __busy = true
  try { console.log('poison observed: ' + what) } finally { __busy = false }
}
`

export interface Poison {
  readonly name: string
  readonly source: string
}

/** Replaces every listed method of `owner` with a reporter that returns `result`. */
function replaceAll(owner: string, keys: readonly string[], result: string): string {
  return `{
  const __define = Object.defineProperty
  const __keys = ${JSON.stringify(keys)}
  const __owner = ${owner}
  for (let __i = 0; __i < __keys.length; __i++) {
    const __k = __keys[__i]
    if (__owner == null || !(__k in __owner)) continue
    __define(__owner, __k, { __proto__: null, value: function () { __seen('${owner}.' + __k); ${result} }, writable: true, configurable: true })
  }
}`
}

/** Getters and setters on `owner` for each key: reads give undefined, writes are swallowed. */
function accessors(owner: string, keys: readonly string[]): string {
  return `{
  const __keys = ${JSON.stringify(keys)}
  for (let __i = 0; __i < __keys.length; __i++) {
    const __k = __keys[__i]
    Object.defineProperty(${owner}, __k, {
      __proto__: null,
      get() { __seen('get ${owner}[' + __k + ']'); return undefined },
      set(v) { __seen('set ${owner}[' + __k + ']') },
      configurable: true,
    })
  }
}`
}

/** Names cordon's own records could use: a runtime that reads or writes them through a prototype would meet these. */
const INTERNAL_LOOKING_KEYS = [
  '0',
  '1',
  '2',
  '3',
  '$',
  'v',
  'code',
  'ok',
  'value',
  'trace',
  'dir',
  'id',
  'level',
  'status',
  'payload',
  'type',
  'tools',
  'limits',
  'globals',
  'resolve',
  'reject',
  'fn',
  'args',
  'repeat',
  'target',
  'key',
  'text',
  'used',
  'sync',
  // A property descriptor's fields: defineProperty reads the missing ones through the prototype.
  'get',
  'set',
  'writable',
  'enumerable',
  'configurable',
]

const OBJECT_STATICS = [
  'keys',
  'values',
  'entries',
  'getOwnPropertyNames',
  'getOwnPropertyDescriptor',
  'getOwnPropertyDescriptors',
  'defineProperty',
  'defineProperties',
  'create',
  'assign',
  'getPrototypeOf',
  'setPrototypeOf',
  'freeze',
  'is',
  'fromEntries',
  'hasOwn',
  'getOwnPropertySymbols',
  'isFrozen',
  'seal',
  'preventExtensions',
]
const OBJECT_PROTO = ['hasOwnProperty', 'toString', 'valueOf', 'propertyIsEnumerable', 'isPrototypeOf', 'toLocaleString']
const REFLECT = [
  'apply',
  'construct',
  'ownKeys',
  'get',
  'set',
  'has',
  'defineProperty',
  'getOwnPropertyDescriptor',
  'getPrototypeOf',
  'setPrototypeOf',
  'deleteProperty',
  'isExtensible',
  'preventExtensions',
]
const STRING_PROTO = [
  'slice',
  'split',
  'indexOf',
  'lastIndexOf',
  'charCodeAt',
  'charAt',
  'codePointAt',
  'replace',
  'replaceAll',
  'substring',
  'substr',
  'trim',
  'concat',
  'padStart',
  'padEnd',
  'repeat',
  'at',
  'startsWith',
  'endsWith',
  'includes',
  'match',
  'matchAll',
  'search',
  'toLowerCase',
  'toUpperCase',
  'normalize',
  'localeCompare',
  'toString',
  'valueOf',
]

export const POISONS: readonly Poison[] = [
  {
    name: 'getters on Array.prototype indices',
    source: `for (let i = 0; i < 4; i++) Object.defineProperty(Array.prototype, i, { get() { __seen('get Array.prototype[' + i + ']'); return 9 }, configurable: true })`,
  },
  {
    name: 'setters on Array.prototype indices',
    source: `for (let i = 0; i < 4; i++) Object.defineProperty(Array.prototype, i, { set(v) { __seen('set Array.prototype[' + i + ']') }, configurable: true })`,
  },
  { name: 'accessors on Object.prototype for indices and record-like names', source: accessors('Object.prototype', INTERNAL_LOOKING_KEYS) },
  {
    name: 'Array.prototype methods replaced',
    source: replaceAll(
      'Array.prototype',
      [
        'push',
        'pop',
        'shift',
        'unshift',
        'join',
        'slice',
        'splice',
        'map',
        'filter',
        'forEach',
        'concat',
        'indexOf',
        'includes',
        'reverse',
        'sort',
        'fill',
        'toString',
      ],
      'return 7',
    ),
  },
  {
    name: 'JSON replaced, and its methods replaced in place',
    source: `${replaceAll('JSON', ['stringify', 'parse'], "return '{}'")}
globalThis.JSON = { stringify() { __seen('new JSON.stringify'); return '"x"' }, parse() { __seen('new JSON.parse'); return 1 } }`,
  },
  {
    name: 'iterators replaced (arrays, strings, maps, sets, and their iterator prototypes)',
    source: `const __done = function () { __seen('iterator ' + (this === undefined ? '' : typeof this)); return { next() { return { done: true, value: undefined } }, [Symbol.iterator]() { return this } } }
const __arrayIterProto = Object.getPrototypeOf([][Symbol.iterator]())
const __stringIterProto = Object.getPrototypeOf(''[Symbol.iterator]())
const __mapIterProto = Object.getPrototypeOf(new Map()[Symbol.iterator]())
const __setIterProto = Object.getPrototypeOf(new Set()[Symbol.iterator]())
const __protos = [__arrayIterProto, __stringIterProto, __mapIterProto, __setIterProto]
for (let i = 0; i < __protos.length; i++) Object.defineProperty(__protos[i], 'next', { value: function () { __seen('next'); return { done: true, value: undefined } }, configurable: true, writable: true })
const __owners = [Array.prototype, String.prototype, Map.prototype, Set.prototype]
for (let i = 0; i < __owners.length; i++) Object.defineProperty(__owners[i], Symbol.iterator, { value: __done, configurable: true, writable: true })
${replaceAll('Array.prototype', ['values', 'keys', 'entries'], 'return __done()')}
${replaceAll('Map.prototype', ['entries', 'keys', 'values', 'forEach'], 'return undefined')}
${replaceAll('Set.prototype', ['entries', 'keys', 'values', 'forEach'], 'return undefined')}`,
  },
  {
    name: 'String.prototype methods and the regular expression protocol replaced',
    source: `${replaceAll('String.prototype', STRING_PROTO, "return 'poisoned'")}
for (const s of [Symbol.split, Symbol.replace, Symbol.match, Symbol.search, Symbol.matchAll]) {
  Object.defineProperty(String.prototype, s, { value: function () { __seen('String.prototype symbol method'); return 'poisoned' }, configurable: true, writable: true })
  Object.defineProperty(RegExp.prototype, s, { value: function () { __seen('RegExp.prototype symbol method'); return null }, configurable: true, writable: true })
}
${replaceAll('RegExp.prototype', ['exec', 'test', 'toString'], 'return null')}`,
  },
  {
    name: 'Object methods replaced',
    source: `${replaceAll('Object.prototype', OBJECT_PROTO, "return 'poisoned'")}\n${replaceAll('Object', OBJECT_STATICS, "throw new Error('poisoned Object method')")}`,
  },
  { name: 'Reflect methods replaced', source: replaceAll('Reflect', REFLECT, "throw new Error('poisoned Reflect method')") },
  {
    name: 'Function.prototype call, apply, bind and toString replaced',
    source: replaceAll('Function.prototype', ['call', 'apply', 'bind', 'toString'], "throw new Error('poisoned Function method')"),
  },
  {
    name: 'Symbol.toPrimitive, toString and valueOf on the prototypes',
    source: `for (const o of [Object.prototype, Array.prototype, String.prototype, Number.prototype, Error.prototype, Date.prototype, Symbol.prototype]) {
  Object.defineProperty(o, Symbol.toPrimitive, { value: function () { __seen('Symbol.toPrimitive'); return 'poisoned' }, configurable: true, writable: true })
}
${replaceAll('Number.prototype', ['toString', 'valueOf', 'toFixed'], "return 'poisoned'")}
${replaceAll('Error.prototype', ['toString'], "return 'poisoned'")}
${replaceAll('Date.prototype', ['toISOString', 'getTime', 'toJSON', 'valueOf', 'toString'], "return 'poisoned'")}
${replaceAll('BigInt.prototype', ['toString', 'valueOf'], "return 'poisoned'")}
${replaceAll('Symbol.prototype', ['toString'], "return 'poisoned'")}`,
  },
  {
    name: 'Symbol.species and toJSON on the prototypes, Promise.prototype.then wrapped',
    source: `for (const C of [Array, Promise, Map, Set, ArrayBuffer, Object.getPrototypeOf(Uint8Array)]) {
  Object.defineProperty(C, Symbol.species, { get() { __seen('Symbol.species of ' + C.name); return undefined }, configurable: true })
}
for (const o of [Object.prototype, Array.prototype]) Object.defineProperty(o, 'toJSON', { value: function () { __seen('toJSON'); return 'poisoned' }, configurable: true, writable: true })
const __then = Promise.prototype.then
Object.defineProperty(Promise.prototype, 'then', { value: function (a, b) { __seen('Promise.prototype.then'); return __then.call(this, a, b) }, configurable: true, writable: true })`,
  },
  {
    name: 'a Proxy as the prototype of Array.prototype, Error.prototype, Function.prototype, Promise.prototype, Map.prototype and Set.prototype',
    // Lookups the engine makes for the guest's own values are not cordon's: \`then\` when a value
    // resolves a promise, V8's Error.prepareStackTrace when the stack of the guest's error is read
    // for the report, and Node's unhandled-rejection tracker reading its async-id symbols on a
    // guest promise that rejected before it had a handler (the subprocess child is a Node process).
    source: `const __engineKeys = ['then', 'prepareStackTrace', 'Symbol(async_id_symbol)', 'Symbol(trigger_async_id_symbol)']
const __spy = (label) => new Proxy(Object.prototype, {
  get(t, k, r) { if (!__engineKeys.includes(String(k))) __seen(label + ' get ' + String(k)); return Reflect.get(t, k, r) },
  set(t, k, v, r) { __seen(label + ' set ' + String(k)); return Reflect.set(t, k, v, r) },
  has(t, k) { __seen(label + ' has ' + String(k)); return Reflect.has(t, k) },
})
const __targets = [['Array', Array.prototype], ['Error', Error.prototype], ['Function', Function.prototype], ['Promise', Promise.prototype], ['Map', Map.prototype], ['Set', Set.prototype]]
for (let i = 0; i < __targets.length; i++) Object.setPrototypeOf(__targets[i][1], __spy(__targets[i][0]))`,
  },
]
