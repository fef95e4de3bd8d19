/**
 * Attacks aimed at what each engine's embedding documents as its weak spot: node:vm's
 * reachable callers, isolated-vm's References, quickjs-emscripten's C recursion.
 */
import type { ConformanceCheck } from '../types.js'
import { GUEST_WALK_SOURCE } from '../harness/guest-snippets.js'
import { attack } from './attacks-define.js'

export const engineAttacks: ConformanceCheck[] = [
  // node:vm's documentation: "The node:vm module is not a security mechanism." The classic
  // escape walks `arguments.callee.caller` from a sloppy-mode function the host calls. Here a
  // sloppy walker is handed to every place the runtime calls back into the guest, and climbs
  // the whole caller chain, probing each caller and its arguments.
  attack({
    name: 'caller chains walked from every runtime callback (node:vm docs, arguments.callee.caller)',
    body: `
const makeWalker = Function('probe', \`return function walker() {
  let f = walker.caller, n = 0
  while (f && n++ < 50) {
    probe(f, 'caller ' + n)
    try { const a = f.arguments; if (a) for (let i = 0; i < a.length; i++) probe(a[i], 'caller ' + n + ' argument') } catch (e) {}
    try { f = f.caller } catch (e) { break }
  }
  return 'walked'
}\`)
const walker = makeWalker(__probe)
await new Promise((resolve) => setTimeout(() => { walker(); resolve() }, 1))
await new Promise((resolve) => queueMicrotask(() => { walker(); resolve() }))
await ns.tool().then(walker)
await ns.fail().catch(walker)
console.log({ toString: walker, valueOf: walker, [Symbol.toPrimitive]: walker })
console.log('%s', { toString: walker })
try { setTimeout(() => {}, { valueOf: walker }) } catch (e) {}
Array.prototype.toJSON = walker
try { await ns.tool([1]) } catch (e) {}
delete Array.prototype.toJSON
const thenable = { then(resolve) { walker(); resolve(1) } }
await thenable
await ns.tool().then(() => thenable)
return __report()`,
  }),
  // isolated-vm's README: a Reference (or ExternalCopy, Callback) handed to untrusted code is a
  // springboard into the isolate that made it (ref.deref(), ref.get(), ref.apply()...). Here the
  // guest searches everything it can reach, four levels deep, for such a handle, and sends every
  // string it saw to a tool, where the host looks for its secrets.
  attack({
    name: 'no isolated-vm Reference, ExternalCopy or Callback is reachable (isolated-vm README)',
    body: `${GUEST_WALK_SOURCE}
const strings = []
const visit = (value, path) => {
  try { if (typeof value === 'object' && !Array.isArray(value)) for (const v of Object.values(value)) if (typeof v === 'string' && strings.length < 5000) strings.push(v.slice(0, 200)) } catch (e) {}
  if (__handle(value)) __probe(value, path)
}
const pending = ns.tool()
const roots = {
  globalThis, pending, toolValue: await ns.tool(),
  toolError: await ns.fail().catch((e) => e), schemaError: await ns.typed(1).catch((e) => e),
  timer: setTimeout(() => {}, 1), interval: setInterval(() => {}, 1000),
}
clearInterval(roots.interval)
for (const [name, root] of Object.entries(roots)) __walk(root, name, 4, visit)
for (const name of ['ivm', '_ivm', 'isolatedVm', '$0', '_host', '__host', 'host', 'bridge', '_bridge', 'Reference', 'ExternalCopy', 'Callback']) {
  try { const v = Function('return typeof ' + name + ' === "undefined" ? undefined : ' + name)(); if (v !== undefined) __probe(v, 'global ' + name) } catch (e) {}
}
await pending
await ns.tool({ strings })
return __report()`,
  }),
  // quickjs-emscripten's README and issues: recursion through C paths that QuickJS's stack
  // limit does not see (JSON.parse, the parser, regular expressions, nested proxies) can
  // exhaust the WebAssembly stack. Each must end in a catchable guest error or a failed run,
  // never in a host error reaching the guest or a broken engine.
  attack({
    name: 'deep nesting through native recursion: JSON.parse, the parser, regex, proxies (quickjs-emscripten stack issues)',
    orFails: ['RUNTIME_ERROR'],
    body: `
const n = 100000
const tries = {
  'JSON.parse': () => JSON.parse('['.repeat(n) + ']'.repeat(n)),
  'Function parser': () => Function('return ' + '('.repeat(n) + '1' + ')'.repeat(n)),
  'eval of nested arrays': () => eval('['.repeat(n) + ']'.repeat(n)),
  'a nested regex': () => new RegExp('('.repeat(50000) + 'a' + ')'.repeat(50000)).test('a'),
  'nested proxies': () => { let p = {}; for (let i = 0; i < n; i++) p = new Proxy(p, {}); return p.x },
  'nested toString': () => { let o = 'x'; for (let i = 0; i < n; i++) { const inner = o; o = { toString: () => String(inner) } } return String(o) },
  'JSON.stringify of a deep array': () => { let a = []; for (let i = 0; i < n; i++) a = [a]; return JSON.stringify(a) },
  'flat(Infinity)': () => { let a = []; for (let i = 0; i < n; i++) a = [a]; return a.flat(Infinity) },
}
for (const [label, attempt] of Object.entries(tries)) {
  try { attempt() } catch (e) { __probe(e, label) }
}
return __report()`,
  }),
]
