import type { ToolSet } from '@cordon/core'
import { expectOk, runOk, summarize, timedRun } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'
import { escapeChecks } from './isolation-escapes.js'

const HOST_GLOBALS = ['process', 'require', 'module', 'exports', 'Buffer', 'fetch', '__dirname', '__filename', 'Deno', 'Bun']
const HOST_SECRET = '__cordonHostSecret'

const realmChecks: ConformanceCheck[] = [
  {
    group: 'isolation',
    name: `no host globals in the guest (${HOST_GLOBALS.join(', ')})`,
    async run({ sandbox }) {
      const code = `return ${JSON.stringify(HOST_GLOBALS)}.filter((n) => typeof globalThis[n] !== 'undefined' || Function('return typeof ' + n)() !== 'undefined')`
      const present = await runOk(sandbox, code)
      expectSameValue(present, [], 'host globals visible in the guest')
    },
  },
  {
    group: 'isolation',
    name: "the host's own globals are not visible to the guest",
    async run({ sandbox }) {
      const host = globalThis as Record<string, unknown>
      host[HOST_SECRET] = 'secret'
      try {
        const seen = await runOk(
          sandbox,
          `[typeof ${HOST_SECRET}, typeof globalThis.${HOST_SECRET}, Function('return typeof ${HOST_SECRET}')()]`,
        )
        expectSameValue(seen, ['undefined', 'undefined', 'undefined'], `typeof ${HOST_SECRET} in the guest`)
      } finally {
        delete host[HOST_SECRET]
      }
    },
  },
  {
    group: 'isolation',
    name: 'dynamic import of Node built-ins fails',
    async run({ sandbox }) {
      for (const specifier of ['node:fs', 'fs', 'node:child_process']) {
        const code = `try { const m = await import(${JSON.stringify(specifier)}); return typeof (m.readFileSync || m.execSync) } catch (e) { return 'failed' }`
        const { result } = await timedRun(sandbox, code)
        if (result.ok && result.value !== 'failed') throw new Error(`import('${specifier}') gave the guest ${summarize(result.value)}`)
      }
    },
  },
  {
    group: 'isolation',
    name: 'globals, built-in changes and declarations of one run are gone in the next',
    async run({ sandbox }) {
      const first = [
        'globalThis.leaked = 1',
        "Object.defineProperty(globalThis, 'hidden', { value: 2 })",
        'Math.leak = 3',
        "JSON.stringify = () => 'hijacked'",
        'Array.prototype.leak = 4',
        'var leakedVar = 5',
        'function leakedFn() {}',
        "return 'set'",
      ].join('\n')
      await runOk(sandbox, first)
      const second =
        '[typeof leaked, typeof hidden, typeof Math.leak, JSON.stringify([1]), typeof [].leak, typeof leakedVar, typeof leakedFn]'
      expectSameValue(
        await runOk(sandbox, second),
        ['undefined', 'undefined', 'undefined', '[1]', 'undefined', 'undefined', 'undefined'],
        'what the next run sees',
      )
    },
  },
  {
    group: 'isolation',
    name: "a run's globals and tools are gone in the next run",
    async run({ sandbox }) {
      const tools: ToolSet = { 'secret.tool': { execute: () => 's' } }
      await runOk(sandbox, 'await secret.tool() + token', { tools, globals: { token: 't' } })
      expectSameValue(await runOk(sandbox, '[typeof secret, typeof token]'), ['undefined', 'undefined'], 'what the next run sees')
    },
  },
  {
    group: 'isolation',
    name: 'Object.prototype pollution is invisible to the host and to the next run',
    async run({ sandbox }) {
      const code =
        "Object.prototype.polluted = 'yes'\nArray.prototype.polluted = 'yes'\nObject.prototype.toString = () => 'hijacked'\nreturn { list: [] }"
      const value = (await runOk(sandbox, code)) as Record<string, unknown>
      const host = {} as Record<string, unknown>
      const hostList = [] as unknown as Record<string, unknown>
      if (host.polluted !== undefined || hostList.polluted !== undefined || Object.prototype.toString.call({}) !== '[object Object]') {
        throw new Error('the guest changed the host prototypes')
      }
      const list = value.list as Record<string, unknown> | undefined
      if ('polluted' in value || (list !== undefined && 'polluted' in list))
        throw new Error('the returned value inherits the guest pollution')
      expectSameValue(
        await runOk(sandbox, '[({}).polluted, [].polluted, String({})]'),
        [undefined, undefined, '[object Object]'],
        'the next run',
      )
    },
  },
  {
    group: 'isolation',
    name: "values from tools are made of the guest's own objects",
    async run({ sandbox }) {
      const tools: ToolSet = {
        't.obj': { execute: () => ({ list: [1], map: new Map(), when: new Date(0), err: new Error('e'), bytes: new Uint8Array(1) }) },
      }
      const code = [
        'const r = await t.obj()',
        'return [Object.getPrototypeOf(r) === Object.prototype, Object.getPrototypeOf(r.list) === Array.prototype,',
        '  r.map instanceof Map, r.when instanceof Date, r.err instanceof Error, r.bytes instanceof Uint8Array, r instanceof Object]',
      ].join('\n')
      expectSameValue(await runOk(sandbox, code, { tools }), [true, true, true, true, true, true, true], 'prototype checks in the guest')
    },
  },
  {
    group: 'isolation',
    name: "values from the guest are made of the host's own objects",
    async run({ sandbox }) {
      let args: unknown
      const tools: ToolSet = { 't.put': { execute: (a: unknown) => ((args = a), null) } }
      const code = 'const v = { list: [1], map: new Map(), when: new Date(0), err: new Error("e") }\nawait t.put(v)\nv'
      const { result } = await timedRun(sandbox, code, { tools })
      for (const [what, value] of [
        ['the result', expectOk(result)],
        ['the tool arguments', args],
      ] as const) {
        const v = value as Record<string, unknown>
        const checks = [
          Object.getPrototypeOf(v) === Object.prototype,
          Object.getPrototypeOf(v.list) === Array.prototype,
          v.map instanceof Map,
          v.when instanceof Date,
          v.err instanceof Error,
        ]
        expectSameValue(checks, [true, true, true, true, true], `host prototype checks on ${what}`)
      }
    },
  },
]

export const isolationChecks: readonly ConformanceCheck[] = [...realmChecks, ...escapeChecks]
