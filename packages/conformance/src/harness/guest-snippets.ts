/**
 * Guest-side helpers, prepended to guest programs as source text. Plain ES2020 so that
 * every engine (QuickJS included) can run them.
 */

/**
 * `__same(actual, expected)` returns '' when a value that entered the guest equals the
 * guest-built `expected` under the value model and is made of the guest's own objects,
 * else a description of the first difference.
 */
export const GUEST_SAME_SOURCE = `
function __same(a, e, path) {
  path = path || '$'
  if (typeof e !== 'object' || e === null) return Object.is(a, e) ? '' : path + ' differs: ' + String(a)
  if (typeof a !== 'object' || a === null) return path + ' should be an object, got ' + typeof a
  if (e instanceof Error) {
    if (!(a instanceof Error)) return path + ' should be an Error of the guest'
    if (a.name !== e.name) return path + '.name is ' + a.name
    return a.message === e.message ? '' : path + '.message is ' + a.message
  }
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(e)) return path + ' has a foreign or wrong prototype'
  const list = (x, y, p) => {
    if (x.length !== y.length) return p + ' has length ' + x.length + ', not ' + y.length
    for (let i = 0; i < y.length; i++) { const r = __same(x[i], y[i], p + '[' + i + ']'); if (r) return r }
    return ''
  }
  if (e instanceof Date) return Object.is(a.getTime(), e.getTime()) ? '' : path + ' is another time'
  if (e instanceof ArrayBuffer) return list(Array.from(new Uint8Array(a)), Array.from(new Uint8Array(e)), path)
  if (ArrayBuffer.isView(e)) return list(Array.from(a), Array.from(e), path)
  if (e instanceof Map || e instanceof Set) return list(Array.from(a), Array.from(e), path)
  if (Array.isArray(e)) return list(a, e, path)
  const ak = Reflect.ownKeys(a), ek = Reflect.ownKeys(e)
  if (ak.length !== ek.length) return path + ' has keys ' + ak.map(String).join(',')
  for (const k of ek) {
    const d = Object.getOwnPropertyDescriptor(a, k)
    if (!d || !('value' in d) || !d.enumerable) return path + '.' + String(k) + ' is missing or not an enumerable data property'
    const r = __same(d.value, e[k], path + '.' + String(k))
    if (r) return r
  }
  return ''
}
`

/** The global the escape checks try to set on the host; it must stay undefined there. */
export const ESCAPE_MARKER = '__cordonEscape'

/**
 * `__escape(x, fast)` tries to reach the host through `x`: its constructor chain, its
 * prototype's, and Function from there. Returns a description of what it reached
 * (a host `process` or `require`), or '' when it reached nothing. It also tries to set
 * ESCAPE_MARKER on whatever global it finds, which the host checks. With `fast`, the
 * guest's own Function constructors (captured before user code) are not tried again.
 */
export const GUEST_ESCAPE_SOURCE = `
const __ownFunctions = [
  Function,
  Object.getPrototypeOf(async function () {}).constructor,
  Object.getPrototypeOf(function* () {}).constructor,
  Object.getPrototypeOf(async function* () {}).constructor,
]
function __escape(x, fast) {
  const found = []
  const tryFunction = (F, how) => {
    try {
      if (typeof F !== 'function') return
      if (fast && __ownFunctions.includes(F)) return
      try { F('globalThis.${ESCAPE_MARKER} = "reached via ' + how + '"')() } catch (e) {}
      // An AsyncFunction constructor returns a promise here: only the marker above catches it.
      const p = F('return typeof process === "object" && process !== null && typeof process.pid === "number" ? process : undefined')()
      if (p && typeof p.pid === 'number') found.push('process via ' + how)
      const r = F('return typeof require === "function" ? require : undefined')()
      if (typeof r === 'function') found.push('require via ' + how)
    } catch (e) {}
  }
  try {
    if (x === null || x === undefined) return ''
    tryFunction(x.constructor && x.constructor.constructor, 'x.constructor.constructor')
    const proto = Object.getPrototypeOf(x)
    if (proto) tryFunction(proto.constructor && proto.constructor.constructor, 'prototype.constructor.constructor')
    if (typeof x === 'function') tryFunction(proto && proto.constructor, 'Object.getPrototypeOf(x).constructor')
  } catch (e) {}
  return found.join('; ')
}
`

/** Log lines attack programs write when they reached something; the host fails on them. */
export const REACHED_PREFIX = 'REACHED '

/**
 * Attack helpers on top of GUEST_ESCAPE_SOURCE. `__probe(x, label)` records what `x`
 * reached: a host Function (through `__escape`) or a handle of an engine's host API (an
 * isolated-vm Reference, ExternalCopy or Callback, a Node binding). Each finding is logged
 * at once (so it is seen even if the run then fails) and kept for `__report()`, which an
 * attack returns: '' when nothing was reached.
 */
export const GUEST_ATTACK_SOURCE = `
const __found = []
const __handleMethods = ['derefInto', 'applySync', 'applySyncPromise', 'applyIgnored', 'getSync', 'setSync', 'copySync', 'copyInto', 'binding', '_linkedBinding', 'dlopen']
const __handleNames = ['Reference', 'ExternalCopy', 'Callback', 'Isolate', 'NativeModule']
function __handle(x) {
  try {
    if (x === null || (typeof x !== 'object' && typeof x !== 'function')) return ''
    for (const m of __handleMethods) if (m in x) return 'a host handle (it has .' + m + ')'
    const c = x.constructor
    const name = c && typeof c.name === 'string' ? c.name : ''
    if (__handleNames.includes(name) && globalThis[name] !== c) return 'a host handle (' + name + ')'
  } catch (e) {}
  return ''
}
function __probe(x, label) {
  const r = __escape(x) || __handle(x)
  if (!r) return
  __found.push(label + ': ' + r)
  try { console.log('${REACHED_PREFIX}' + label + ': ' + r) } catch (e) {}
}
function __report() { return __found.join('; ') }
`

/**
 * `__walk(root, path, maxDepth, onValue)` calls `onValue(value, path)` once for every object
 * and function reachable from `root` through own properties (values, getters, setters) and
 * prototypes, up to `maxDepth` steps; objects seen by an earlier walk are skipped.
 */
export const GUEST_WALK_SOURCE = `
const __walked = new Set()
function __walk(value, path, maxDepth, onValue, depth) {
  depth = depth || 0
  if (value === null || (typeof value !== 'object' && typeof value !== 'function') || __walked.has(value)) return
  __walked.add(value)
  onValue(value, path)
  if (depth >= maxDepth) return
  let keys = []
  try { keys = Reflect.ownKeys(value) } catch (e) {}
  for (const key of keys) {
    let d
    try { d = Object.getOwnPropertyDescriptor(value, key) } catch (e) {}
    if (d) for (const v of [d.value, d.get, d.set]) __walk(v, path + '.' + String(key), maxDepth, onValue, depth + 1)
  }
  try { __walk(Object.getPrototypeOf(value), path + '.[[Prototype]]', maxDepth, onValue, depth + 1) } catch (e) {}
}
`
