/**
 * Promise-based attacks. In vm2 a promise made on the host side, or a callback the host
 * calls with its own resolve functions or errors, handed the guest a host object whose
 * constructor chain led to the host's Function. Here every promise the guest sees is
 * probed the same ways.
 */
import type { ToolSet } from '@cordon/core'
import { expectHealthy, runOk, sleep } from '../harness/run.js'
import type { ConformanceCheck } from '../types.js'
import { attack } from './attacks-define.js'

interface EventSource {
  on(event: string, listener: (reason: unknown) => void): unknown
  off(event: string, listener: (reason: unknown) => void): unknown
}

export const promiseAttacks: ConformanceCheck[] = [
  // vm2 GHSA-cchq-frgv-rjh5 (CVE-2023-37466): an async function's promise gets a fake
  // constructor whose Symbol.species executor receives the engine's reject function and the
  // RangeError of a stack overflow raised while the engine was busy.
  attack({
    name: 'Promise Symbol.species executor receives a stack-overflow error (vm2 GHSA-cchq-frgv-rjh5)',
    body: `
// Stacks are formatted only near the limit (measured first), where the overflow can hit the formatter.
let limit = 0
try { (function measure(d) { limit = d; measure(d + 1) })(0) } catch (e) {}
async function overflow() { (function deeper(d) { if (d > limit - 400) new Error('x').stack; deeper(d + 1) })(0) }
const fake = (label) => ({ [Symbol.species]: function FakePromise(executor) {
  __probe(executor, label + ' executor')
  executor((v) => __probe(v, label + ' value'), (e) => { __probe(e, label + ' reason'); __probe(e && e.constructor, label + ' reason constructor') })
} })
const a = overflow()
a.constructor = fake('async overflow')
a.then()
const b = ns.fail()
b.constructor = fake('tool rejection')
b.then()
const c = ns.tool()
c.constructor = fake('tool value')
c.then()
await new Promise((resolve) => setTimeout(resolve, 5))
try { await b } catch (e) {}
return __report()`,
  }),
  // vm2 GHSA-99p7-6v5w-7xg8 (CVE-2026-22709): callbacks were sanitized on one Promise's
  // then but not on another's, and static methods run with a foreign constructor. Here
  // then/catch/finally are borrowed across promises and every static method is called with
  // a guest constructor that collects the engine's resolve functions.
  attack({
    name: 'Promise then and static methods borrowed across promises (vm2 GHSA-99p7-6v5w-7xg8)',
    body: `
const handled = (p) => { p.catch(() => {}); return p }
const sources = [ns.tool(), handled(ns.fail()), (async () => 1)(), Promise.resolve(1), new Promise(() => {})]
function Thief(executor) {
  executor((v) => __probe(v, 'thief resolve value'), (e) => __probe(e, 'thief reject reason'))
  this.then = () => {}
}
for (const p of sources) {
  const P = p.constructor
  __probe(P, 'promise constructor')
  for (const name of ['resolve', 'reject', 'all', 'allSettled', 'any', 'race', 'withResolvers', 'try']) {
    const method = P[name]
    if (typeof method !== 'function') continue
    __probe(method, 'Promise.' + name)
    try { const r = method.call(Thief, [ns.tool(), handled(ns.fail())]); __probe(r, 'Promise.' + name + ' result') } catch (e) { __probe(e, 'Promise.' + name + ' error') }
  }
  for (const name of ['then', 'catch', 'finally']) {
    for (const q of sources) {
      try {
        const r = Reflect.apply(p[name], q, [(v) => __probe(v, name + ' callback value'), (e) => __probe(e, name + ' callback reason')])
        __probe(r, name + ' result')
        r.catch(() => {})
      } catch (e) { __probe(e, name + ' error') }
    }
  }
}
try { await Promise.any([handled(ns.fail()), handled(ns.fail())]) } catch (e) { __probe(e, 'AggregateError'); for (const x of e.errors || []) __probe(x, 'AggregateError item') }
await new Promise((resolve) => setTimeout(resolve, 5))
return __report()`,
  }),
  // vm2 GHSA-2v2p-6j97-cjg9 and GHSA-gjq8-xm47-88rc: host promise callbacks. A guest that
  // hijacks then() on every object sees each promise resolution the runtime performs; the
  // callbacks it receives must be the guest's own.
  attack({
    name: 'Object.prototype.then hijacks every resolution the runtime performs (vm2 GHSA-2v2p-6j97-cjg9)',
    body: `
Object.defineProperty(Object.prototype, 'then', {
  configurable: true,
  get() {
    return function (resolve, reject) {
      __probe(this, 'then receiver'); __probe(resolve, 'then resolve'); __probe(reject, 'then reject')
    }
  },
})
for (const p of [ns.tool(), ns.fail(), ns.typed(1)]) p.catch(() => {})
await new Promise((resolve) => setTimeout(resolve, 20))
delete Object.prototype.then
return __report()`,
  }),
  // The same hijack on the value the program returns: the runtime resolves the result through
  // the guest's then while it copies the value out.
  attack({
    name: 'the result is a thenable whose then probes what the runtime passes it (vm2 GHSA-cchq-frgv-rjh5 class)',
    body: `
const result = { then(resolve, reject) { __probe(resolve, 'result then resolve'); __probe(reject, 'result then reject'); resolve(__report()) } }
return result`,
  }),
  // vm2 GHSA-2v2p-6j97-cjg9 and GHSA-gjq8-xm47-88rc: a rejected host promise the guest never
  // handles tripped Node's unhandled-rejection policy and ended the host process. Here tool
  // promises reject now and after the run, and nobody handles them in the guest.
  {
    group: 'attacks',
    name: 'attack: tool rejections the guest ignores reach no host unhandledRejection (vm2 GHSA-2v2p-6j97-cjg9)',
    async run({ sandbox }) {
      const proc = (globalThis as { process?: EventSource }).process
      const seen: unknown[] = []
      const listener = (reason: unknown) => void seen.push(reason)
      proc?.on('unhandledRejection', listener)
      try {
        const tools: ToolSet = {
          'ns.fail': { execute: () => Promise.reject(new Error('ignored by the guest')) },
          'ns.later': { execute: () => sleep(100).then(() => Promise.reject(new Error('rejected after the run'))) },
        }
        await runOk(sandbox, "ns.fail(); ns.fail().then(() => 1); ns.later(); Promise.reject(new Error('guest')); return 'done'", { tools })
        await sleep(300)
      } finally {
        proc?.off('unhandledRejection', listener)
      }
      if (seen.length > 0) throw new Error(`the host saw ${seen.length} unhandled rejection(s), first: ${String(seen[0])}`)
      await expectHealthy(sandbox, 'ignored tool rejections')
    },
  },
]
