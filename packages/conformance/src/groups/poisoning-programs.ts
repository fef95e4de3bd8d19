/**
 * Programs run after each poison. None of them uses a built-in a poison replaces (no iteration,
 * no string or Object methods, no JSON): whatever they return, log or throw must cross exactly as
 * it does in an unpoisoned realm, through cordon's own machinery alone.
 */
import type { RunOptions, ToolSet } from '@cordon/core'

export interface PoisonedProgram {
  readonly name: string
  readonly body: string
  readonly options?: () => RunOptions
  /** Only where the backend has sync host calls. */
  readonly sync?: boolean
}

export function poisoningTools(withSync = false): ToolSet {
  const tools: ToolSet = {
    'ns.echo': { execute: (args: unknown) => args },
    'ns.fail': {
      execute: () => {
        throw new TypeError('tool said no')
      },
    },
  }
  if (withSync) tools['ns.syncEcho'] = { sync: true, execute: (args: unknown) => args }
  return tools
}

export const POISONED_PROGRAMS: readonly PoisonedProgram[] = [
  { name: 'returns nested data', body: `return { a: 1, b: [1, 2, 3], c: 'x', d: [[1], { e: [2, { f: 3 }] }], n: null, t: true }` },
  {
    name: 'returns extended values',
    body: `const m = new Map(); m.set('k', [1, 2]); const s = new Set(); s.add(3)
return [m, s, new Date(0), 10n, new Uint8Array(2), undefined, NaN, -0, { $: [1] }, new Error('e')]`,
  },
  { name: 'returns undefined', body: 'return undefined' },
  { name: 'throws an error', body: `throw new TypeError('boom')` },
  { name: 'throws a non-error', body: 'throw { reason: [1, 2] }' },
  {
    name: 'logs values',
    body: `console.log({ a: [1, 2] }, [3, 4], 'x', 5)
console.warn('%s and %d', 'y', 2)
const m = new Map(); m.set(1, [2])
console.error(m, new RangeError('e'), [undefined, null])
return 1`,
  },
  {
    name: 'calls tools',
    body: `const r = await ns.echo({ list: [1, 2, 3], when: new Date(0) })
const pending = ns.echo([4, [5]])
return [r, await pending]`,
    options: () => ({ tools: poisoningTools() }),
  },
  {
    name: 'catches a failing tool',
    body: `try { await ns.fail({ list: [1] }) } catch (e) { return [e instanceof TypeError, e.message] }`,
    options: () => ({ tools: poisoningTools() }),
  },
  { name: 'returns what cannot cross', body: 'return { list: [1, function f() {}] }' },
  {
    name: 'goes over maxOutputBytes',
    body: `let s = 'x'
for (let i = 0; i < 11; i++) s += s
return [s]`,
    options: () => ({ maxOutputBytes: 1_000 }),
  },
  { name: 'returns its globals', body: 'return input', options: () => ({ globals: { input: { list: [1, 2], m: new Map([[1, [2]]]) } } }) },
  { name: 'waits on a timer', body: 'await new Promise((resolve) => setTimeout(resolve, 1))\nreturn [1, 2]' },
  { name: 'queues a microtask', body: 'let x = 0\nqueueMicrotask(() => { x = [1] })\nawait null\nreturn x' },
  {
    name: 'calls a sync tool',
    body: 'return ns.syncEcho([1, { a: [2] }])',
    options: () => ({ tools: poisoningTools(true) }),
    sync: true,
  },
]
