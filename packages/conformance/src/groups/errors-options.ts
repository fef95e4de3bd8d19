import type { RunOptions, Sandbox } from '@cordon/core'
import { expectHostError } from '../harness/run.js'
import type { ConformanceCheck } from '../types.js'

const execute = () => 1

/** Each case must make `run` throw (or reject) INVALID_OPTIONS. */
function misuse(name: string, cases: Record<string, (sandbox: Sandbox) => unknown>): ConformanceCheck {
  return {
    group: 'errors',
    name: `INVALID_OPTIONS: ${name}`,
    async run({ sandbox }) {
      for (const [what, action] of Object.entries(cases)) {
        await expectHostError(() => action(sandbox), 'INVALID_OPTIONS', what)
      }
    },
  }
}

/** Options cast through unknown: these are deliberately wrong. */
const bad = (options: Record<string, unknown>) => options as unknown as RunOptions

export const hostMisuseChecks: ConformanceCheck[] = [
  misuse('unknown option keys', {
    'timeoutMS (typo)': (s) => s.run('1', bad({ timeoutMS: 100 })),
    'memory (not an option)': (s) => s.run('1', bad({ memory: 64 })),
  }),
  misuse('options of the wrong type or range', {
    "timeoutMs: '100'": (s) => s.run('1', bad({ timeoutMs: '100' })),
    'timeoutMs: 0': (s) => s.run('1', { timeoutMs: 0 }),
    'timeoutMs: NaN': (s) => s.run('1', { timeoutMs: NaN }),
    'maxLogEntries: 1.5': (s) => s.run('1', { maxLogEntries: 1.5 }),
    'memoryMb: -1': (s) => s.run('1', { memoryMb: -1 }),
    'tools: an array': (s) => s.run('1', bad({ tools: [] })),
    "globals: 'x'": (s) => s.run('1', bad({ globals: 'x' })),
    'signal: {}': (s) => s.run('1', bad({ signal: {} })),
    'options: a string': (s) => s.run('1', 'fast' as unknown as RunOptions),
  }),
  misuse('code that is not a string', {
    '42': (s) => s.run(42 as unknown as string),
    undefined: (s) => s.run(undefined as unknown as string),
    null: (s) => s.run(null as unknown as string),
    'an object': (s) => s.run({ code: '1' } as unknown as string),
  }),
  misuse('tool names that are not dotted identifiers', {
    "'bad name'": (s) => s.run('1', { tools: { 'bad name': { execute } } }),
    "'a..b'": (s) => s.run('1', { tools: { 'a..b': { execute } } }),
    "'1abc'": (s) => s.run('1', { tools: { '1abc': { execute } } }),
    "'a.'": (s) => s.run('1', { tools: { 'a.': { execute } } }),
    "''": (s) => s.run('1', { tools: { '': { execute } } }),
    "'a-b'": (s) => s.run('1', { tools: { 'a-b': { execute } } }),
    "'ns.class' (reserved word)": (s) => s.run('1', { tools: { 'ns.class': { execute } } }),
  }),
  misuse('tool names that collide with built-ins', {
    "'console'": (s) => s.run('1', { tools: { console: { execute } } }),
    "'console.log'": (s) => s.run('1', { tools: { 'console.log': { execute } } }),
    "'Math.add'": (s) => s.run('1', { tools: { 'Math.add': { execute } } }),
    "'JSON'": (s) => s.run('1', { tools: { JSON: { execute } } }),
    "'setTimeout'": (s) => s.run('1', { tools: { setTimeout: { execute } } }),
    "'Object.create'": (s) => s.run('1', { tools: { 'Object.create': { execute } } }),
  }),
  misuse('tools without an execute function', {
    '{}': (s) => s.run('1', bad({ tools: { 'a.b': {} } })),
    'execute: 1': (s) => s.run('1', bad({ tools: { 'a.b': { execute: 1 } } })),
    null: (s) => s.run('1', bad({ tools: { 'a.b': null } })),
  }),
  misuse('globals named like a built-in', {
    Math: (s) => s.run('1', { globals: { Math: 1 } }),
    console: (s) => s.run('1', { globals: { console: {} } }),
    JSON: (s) => s.run('1', { globals: { JSON: 'x' } }),
    Object: (s) => s.run('1', { globals: { Object: 1 } }),
    setTimeout: (s) => s.run('1', { globals: { setTimeout: 1 } }),
  }),
  {
    group: 'errors',
    name: 'INVALID_OPTIONS: bad sandbox defaults (from createSandbox or the first run)',
    async run({ newSandbox }) {
      await expectHostError(
        async () => (await newSandbox(bad({ timeoutMs: -5 }))).run('1'),
        'INVALID_OPTIONS',
        'createSandbox(backend, { timeoutMs: -5 })',
      )
    },
  },
  {
    group: 'errors',
    name: 'INVALID_OPTIONS is thrown before any guest code or tool runs',
    async run({ sandbox }) {
      let ran = false
      const tools = { 'probe.ran': { execute: () => (ran = true) }, 'bad name': { execute } }
      await expectHostError(() => sandbox.run('await probe.ran()', { tools }), 'INVALID_OPTIONS', 'a run with one bad tool name')
      if (ran) throw new Error('a tool ran although the options were invalid')
    },
  },
]
