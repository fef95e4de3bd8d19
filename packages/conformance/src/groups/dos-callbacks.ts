/**
 * Guest code that runs where a runtime might not expect it: in promise callbacks, in
 * getters, traps and toJSON while a value is copied out, in GC callbacks. The deadline
 * must hold in each of these places.
 */
import type { ToolSet } from '@cordon/core'
import type { ConformanceCheck } from '../types.js'
import { DOS_TIMEOUT_MS, boundedCase, oneOf, timeoutCase } from './dos-define.js'

/** An echo tool that counts its calls: copying the arguments must stop before it runs. */
function counted() {
  const state = { calls: 0 }
  const tools: ToolSet = { 't.echo': { execute: (x: unknown) => (state.calls++, x) } }
  const after = () => {
    if (state.calls > 0) throw new Error(`the tool ran ${state.calls} time(s) although copying its arguments never finished`)
  }
  return { options: { tools }, after }
}

const LOOPING_VALUES = {
  'an array element getter': 'const v = [1]; Object.defineProperty(v, 0, { get() { for (;;) {} } })',
  'an Error message getter': "const v = new Error('x'); Object.defineProperty(v, 'message', { get() { for (;;) {} } })",
  'a Proxy ownKeys trap': 'const v = new Proxy({}, { ownKeys() { for (;;) {} } })',
  'a Proxy get trap on an array': "const v = new Proxy([1, 2], { get(t, k) { if (k === 'length') for (;;) {} return Reflect.get(t, k) } })",
}

export const callbackDosChecks: ConformanceCheck[] = [
  timeoutCase({
    name: 'a busy loop in a then callback of a tool result → TIMEOUT',
    programs: [
      't.echo(1).then(() => { for (;;) {} })\nawait new Promise(() => {})',
      'Promise.resolve().then(() => { for (;;) {} })\nreturn 1',
    ],
    prepare: () => ({ options: counted().options }),
  }),
  timeoutCase({
    name: 'thenables that resolve to themselves, awaited or returned → TIMEOUT',
    programs: ['const t = { then(resolve) { resolve(t) } }\nawait t', 'const t = { then(resolve) { resolve(t) } }\nreturn t'],
  }),
  timeoutCase({
    name: 'getters and Proxy traps that loop while the result is copied → TIMEOUT',
    programs: Object.values(LOOPING_VALUES).map((make) => `${make}\nreturn v`),
  }),
  timeoutCase({
    name: 'getters and Proxy traps that loop while tool arguments are copied → TIMEOUT, the tool never runs',
    programs: Object.values(LOOPING_VALUES).map((make) => `${make}\nawait t.echo({ v })\nreturn 1`),
    prepare: counted,
  }),
  timeoutCase({
    name: 'console.log of Proxies whose traps loop → TIMEOUT',
    programs: [
      'console.log(new Proxy({}, { ownKeys() { for (;;) {} }, get() { for (;;) {} }, getPrototypeOf() { for (;;) {} } }))\nreturn 1',
      "console.log([1, new Proxy([2], { get(t, k) { if (k === 'length') for (;;) {} return Reflect.get(t, k) } })])\nreturn 1",
    ],
  }),
  // vm2 GHSA-r4fx-v8hh-22mv: a FinalizationRegistry cleanup callback ran guest code after
  // the run's timeout was over. Here cleanups loop; the run ends by itself or at its deadline,
  // and nothing of it runs on the host afterwards.
  boundedCase({
    name: 'FinalizationRegistry cleanups that loop cannot outlive the run (vm2 GHSA-r4fx-v8hh-22mv)',
    timeoutMs: DOS_TIMEOUT_MS,
    programs: [
      [
        "if (typeof FinalizationRegistry !== 'function') return 'done'",
        'const registry = new FinalizationRegistry(() => { for (;;) {} })',
        'for (let i = 0; i < 20000; i++) registry.register({ payload: new Array(50).fill(i) }, i)',
        'const garbage = []',
        'for (let i = 0; i < 200; i++) garbage.push(new Array(1000).fill(i))',
        "return 'done'",
      ].join('\n'),
    ],
    accept: oneOf(['done'], ['TIMEOUT']),
  }),
]
