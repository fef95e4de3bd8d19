/**
 * Error-based attacks: make the engine or the runtime create an error while it is busy on
 * the guest's behalf (formatting a stack, disposing resources, at the stack limit, inside
 * WebAssembly) and see whose realm that error belongs to.
 */
import type { ConformanceCheck } from '../types.js'
import { attack } from './attacks-define.js'

/**
 * A WebAssembly module importing `m.f` (called) and `m.t` (WebAssembly.JSTag), whose
 * `run` calls f and returns whatever JS value f threw, caught in WebAssembly. Two encodings:
 * exnref's try_table and the legacy try/catch, for engines that have one or the other.
 */
const WASM_CATCH_SOURCE = `
const __wasmHeader = [0, 97, 115, 109, 1, 0, 0, 0,
  1, 12, 3, 96, 0, 0, 96, 0, 1, 111, 96, 1, 111, 0,
  2, 14, 2, 1, 109, 1, 102, 0, 0, 1, 109, 1, 116, 4, 0, 2,
  3, 2, 1, 1,
  7, 7, 1, 3, 114, 117, 110, 0, 1]
const __wasmBodies = [
  [0, 2, 111, 31, 64, 1, 0, 0, 0, 16, 0, 11, 208, 111, 15, 11, 11],
  [0, 6, 111, 16, 0, 208, 111, 7, 0, 11, 11],
]
function __wasmCatcher(f) {
  if (typeof WebAssembly !== 'object' || !WebAssembly.JSTag) return undefined
  for (const body of __wasmBodies) {
    try {
      const bytes = new Uint8Array(__wasmHeader.concat([10, body.length + 2, 1, body.length], body))
      const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { m: { f, t: WebAssembly.JSTag } })
      return instance.exports.run
    } catch (e) {}
  }
  return undefined
}
`

export const errorAttacks: ConformanceCheck[] = [
  // vm2 GHSA-55hx-c926-fr95 (and the Symbol-name step of CVE-2023-30547): an Error whose name
  // is a Symbol makes stack formatting throw a TypeError of whichever realm formats it;
  // DisposableStack / `using` wrap it in a SuppressedError.
  attack({
    name: 'SuppressedError and a Symbol-named error thrown while a stack is formatted (vm2 GHSA-55hx-c926-fr95)',
    body: `
const symbolNamed = () => { const e = new Error('x'); e.name = Symbol('n'); return e }
const look = (e, label) => { __probe(e, label); if (e && typeof e === 'object') { __probe(e.error, label + '.error'); __probe(e.suppressed, label + '.suppressed'); for (const x of e.errors || []) __probe(x, label + '.errors[]') } }
try { symbolNamed().stack } catch (e) { look(e, 'stack of a Symbol-named error') }
try { String(symbolNamed()) } catch (e) { look(e, 'String() of a Symbol-named error') }
if (typeof DisposableStack === 'function') {
  const stack = new DisposableStack()
  stack.defer(() => { throw null })
  stack.defer(() => symbolNamed().stack)
  try { stack.dispose() } catch (e) { look(e, 'DisposableStack.dispose') }
}
if (typeof Symbol.dispose === 'symbol') {
  const resource = { [Symbol.dispose]() { return symbolNamed().stack } }
  try { eval('{ using r = resource; throw null }') } catch (e) { look(e, 'using') }
}
if (typeof SuppressedError === 'function') {
  const s = new SuppressedError(symbolNamed(), symbolNamed(), 'suppressed')
  try { console.error(s) } catch (e) { look(e, 'console.error(SuppressedError)') }
  try { await ns.tool(s) } catch (e) { look(e, 'SuppressedError as tool arguments') }
  try { await Promise.reject(new AggregateError([s], 'any')) } catch (e) { look(e, 'AggregateError of a SuppressedError') }
}
try { console.log(symbolNamed()) } catch (e) { look(e, 'console.log of a Symbol-named error') }
try { await ns.tool(symbolNamed()) } catch (e) { look(e, 'a Symbol-named error as tool arguments') }
return __report()`,
  }),
  // vm2 GHSA-7jxr-cg7f-gpgv (CVE-2023-29017): Error.prepareStackTrace was called by the host
  // for errors raised in async host code, with host CallSites. Here the guest's
  // prepareStackTrace is armed before errors the runtime itself formats: a tool's rejection
  // and an uncaught throw from a timer, which ends the run.
  attack({
    name: 'Error.prepareStackTrace armed while the runtime reports an uncaught error (vm2 GHSA-7jxr-cg7f-gpgv)',
    orFails: ['RUNTIME_ERROR'],
    body: `
Error.prepareStackTrace = (error, sites) => {
  __probe(error, 'formatted error')
  for (const site of Array.isArray(sites) ? sites : []) {
    for (const m of ['getThis', 'getFunction', 'getTypeName', 'getEvalOrigin']) { try { __probe(site[m](), 'CallSite.' + m) } catch (e) {} }
  }
  return 'formatted'
}
if (typeof Error.captureStackTrace === 'function') {
  for (const target of [{}, console, ns]) { try { Error.captureStackTrace(target); String(target.stack) } catch (e) { __probe(e, 'captureStackTrace') } }
}
await ns.fail().catch((e) => String(e.stack))
if (__report()) return __report()
setTimeout(() => { throw new TypeError('uncaught in a timer, formatted by the runtime') }, 1)
await new Promise(() => {})`,
  }),
  // vm2 GHSA-cchq-frgv-rjh5 (CVE-2023-37466) reached a host RangeError by exhausting the stack
  // so that the overflow happened inside host code. Here the runtime's functions are called
  // just below the stack limit, where any of their own frames overflows.
  attack({
    name: 'runtime functions called at the stack limit throw only guest errors (vm2 GHSA-cchq-frgv-rjh5)',
    orFails: ['RUNTIME_ERROR'],
    body: `
let tries = 0
const calls = [
  () => console.log('deep', { a: [1] }),
  () => ns.tool({ a: [1, 2, 3] }),
  () => ns.typed(1),
  () => setTimeout(() => {}, 1),
  () => queueMicrotask(() => {}),
]
function dive() {
  try { dive() } catch (overflow) {
    if (tries++ < 15) {
      for (const call of calls) {
        try { const r = call(); if (r && typeof r.catch === 'function') r.catch((e) => __probe(e, 'async error at the stack limit')) } catch (e) { __probe(e, 'error at the stack limit') }
      }
    }
    throw overflow
  }
}
try { dive() } catch (e) { __probe(e, 'stack overflow') }
await new Promise((resolve) => setTimeout(resolve, 5))
return __report()`,
  }),
  // vm2 GHSA-ffh4-j6h5-pg66 ("WASM sandbox escape"): a WebAssembly catch through
  // WebAssembly.JSTag receives the thrown JS value without passing any JS catch. Runs where
  // the guest has WebAssembly with JSTag; elsewhere the same errors are caught in JS.
  attack({
    name: 'errors caught by WebAssembly through WebAssembly.JSTag (vm2 GHSA-ffh4-j6h5-pg66)',
    body: `${WASM_CATCH_SOURCE}
const throwers = {
  'stack overflow': () => { const f = () => f(); f() },
  'a bad timer callback': () => setTimeout('not a function', 1),
  'a bad microtask': () => queueMicrotask(1),
  'a Symbol-named stack': () => { const e = new Error('x'); e.name = Symbol(); return e.stack },
  'a revoked proxy': () => { const r = Proxy.revocable({}, {}); r.revoke(); return Object.keys(r.proxy) },
}
for (const [label, thrower] of Object.entries(throwers)) {
  const run = __wasmCatcher(thrower)
  try { __probe(run ? run() : thrower(), label + ' (caught in WebAssembly)') } catch (e) { __probe(e, label) }
}
return __report()`,
  }),
]
