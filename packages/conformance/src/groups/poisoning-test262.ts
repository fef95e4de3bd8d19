/**
 * Programs in the manner of test262 tests that give an Array.prototype index an accessor and
 * then use ordinary built-ins (each names the test262 test whose behaviour it follows). They
 * pass on the raw engines; here the poisoned prototype is also in place while cordon encodes the
 * result, so each also proves that the encoding never meets the guest's accessor.
 */
import type { RunResult } from '@cordon/core'
import { summarize, timedRun } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'

interface Test262Style {
  readonly follows: string
  readonly body: string
  /** The value the program returns, or the error it throws (name and message). */
  readonly expected: { value: unknown } | { thrown: { name: string; message: string } }
}

const CASES: readonly Test262Style[] = [
  {
    follows: 'built-ins/Array/prototype/every/15.4.4.16-7-c-i-6.js',
    body: `Object.defineProperty(Array.prototype, '0', { get() { return 11 }, configurable: true })
return [[, 12].every((value, index) => (index === 0 ? value === 11 : value === 12)), [, 12]]`,
    expected: { value: [true, [11, 12]] },
  },
  {
    follows: 'built-ins/Array/prototype/indexOf/15.4.4.14-9-b-i-14.js',
    body: `Object.defineProperty(Array.prototype, '0', { get() { return true }, configurable: true })
return { index: [, 1].indexOf(true), last: [, 1].lastIndexOf(true) }`,
    expected: { value: { index: 0, last: 0 } },
  },
  {
    follows: 'built-ins/Promise/allSettled/does-not-invoke-array-setters.js',
    body: `Object.defineProperty(Array.prototype, 0, { set() { throw new Error('a setter ran') }, configurable: true })
const settled = await Promise.allSettled([Promise.resolve(42)])
return [settled.length, settled[0].status, settled[0].value]`,
    expected: { value: [1, 'fulfilled', 42] },
  },
  {
    follows: 'built-ins/Promise/all/does-not-invoke-array-setters.js',
    body: `Object.defineProperty(Array.prototype, 0, { set() { throw new Error('a setter ran') }, configurable: true })
const all = await Promise.all([Promise.resolve(42)])
return [all.length, all[0]]`,
    expected: { value: [1, 42] },
  },
  {
    follows: 'built-ins/Array/prototype/map/15.4.4.19-8-c-i-14.js',
    body: `Object.defineProperty(Array.prototype, '0', { get() { return 5 }, configurable: true })
throw new RangeError('mapped ' + [, 7].map((value) => value * 2).length)`,
    expected: { thrown: { name: 'RangeError', message: 'mapped 2' } },
  },
]

function outcome(result: RunResult): unknown {
  return result.ok
    ? { value: result.value }
    : { thrown: { name: result.error.name, message: result.error.message }, code: result.error.code }
}

export const test262StyleChecks: readonly ConformanceCheck[] = CASES.map((c) => ({
  group: 'poisoning',
  name: `an accessor on an Array.prototype index, as ${c.follows} does: the run ends as on the raw engine`,
  async run({ sandbox }) {
    const { result } = await timedRun(sandbox, c.body, { timeoutMs: 3_000 }, 5_000)
    const expected = 'value' in c.expected ? c.expected : { ...c.expected, code: 'RUNTIME_ERROR' }
    if (result.logs.length > 0) throw new Error(`${c.follows}: no logs expected, got ${summarize(result.logs)}`)
    expectSameValue(outcome(result), expected, c.follows)
  },
}))
