import { isSandboxError } from '@cordon/core'
import type { RunOptions, RunStats, Sandbox, ToolSet } from '@cordon/core'
import { BOOLEAN_CAPABILITIES, ISOLATION_KINDS } from '@cordon/core/backend'
import { expectError, expectOk, runOk, summarize, timedRun } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'

/** One check per stats capability: the stats field agrees with the declaration either way. */
function statsField(field: 'cpuMs' | 'heapBytes', capability: 'cpuTime' | 'heapStats'): ConformanceCheck {
  return {
    group: 'capabilities',
    name: `${capability}: stats.${field} is a non-negative number when declared, undefined when not`,
    async run({ sandbox, backend }) {
      const reported = backend.capabilities[capability]
      const results = [
        (await timedRun(sandbox, 'let s = 0; for (let i = 0; i < 1e5; i++) s += i; s')).result,
        (await timedRun(sandbox, "throw new Error('x')")).result,
      ]
      for (const result of results) {
        const value = result.stats[field]
        const fine = reported ? typeof value === 'number' && Number.isFinite(value) && value >= 0 : value === undefined
        if (!fine) throw new Error(`capabilities.${capability} is ${reported} but stats.${field} is ${summarize(value)}`)
      }
    },
  }
}

/** A backend that declares a capability false must refuse runs that need it, before any guest code runs. */
async function expectUnsupportedAndNothingRan(sandbox: Sandbox, code: string, options: RunOptions): Promise<void> {
  let ran = false
  const tools: ToolSet = { ...options.tools, 'probe.ran': { execute: () => (ran = true) } }
  const { result } = await timedRun(sandbox, `await probe.ran()\n${code}`, { ...options, tools })
  expectError(result, 'UNSUPPORTED')
  if (ran) throw new Error('guest code ran although the run was UNSUPPORTED')
}

function expectStatsShape(stats: RunStats, backendName: string): void {
  if (stats.backend !== backendName) throw new Error(`stats.backend is ${summarize(stats.backend)}, not the backend name ${backendName}`)
  if (!(typeof stats.wallMs === 'number' && stats.wallMs >= 0)) throw new Error(`stats.wallMs is ${summarize(stats.wallMs)}`)
  for (const key of ['toolCalls', 'logsDropped'] as const) {
    if (!Number.isInteger(stats[key]) || stats[key] < 0) throw new Error(`stats.${key} is ${summarize(stats[key])}`)
  }
}

const syncTools = (): ToolSet => ({
  'ns.inc': { sync: true, execute: (n: number) => n + 1 },
  'ns.fail': {
    sync: true,
    execute: () => {
      throw new Error('sync failure')
    },
  },
  'ns.checked': { sync: true, inputSchema: { type: 'number' }, execute: (n: number) => n },
})

export const capabilitiesChecks: readonly ConformanceCheck[] = [
  {
    group: 'capabilities',
    name: 'sessions: createSession() opens a session that keeps state when declared; throws UNSUPPORTED when not',
    async run({ sandbox, backend }) {
      if (!backend.capabilities.sessions) {
        let threw: unknown
        try {
          await sandbox.createSession()
        } catch (error) {
          threw = error
        }
        if (!isSandboxError(threw, 'UNSUPPORTED'))
          throw new Error(`createSession() on a backend without sessions gave ${summarize(threw)}, not UNSUPPORTED`)
        return
      }
      if (typeof backend.openSession !== 'function') throw new Error('capabilities.sessions is true but openSession() is missing')
      const session = await sandbox.createSession()
      try {
        expectOk(await session.run('const kept = 41'))
        expectSameValue(expectOk(await session.run('kept + 1')), 42, 'a value kept by the session')
      } finally {
        await session.dispose()
      }
    },
  },
  {
    group: 'capabilities',
    name: 'the backend declares specificationVersion v1, a name and a complete manifest',
    run({ backend }) {
      if (backend.specificationVersion !== 'v1') throw new Error(`specificationVersion is ${summarize(backend.specificationVersion)}`)
      if (typeof backend.name !== 'string' || backend.name.length === 0) throw new Error(`name is ${summarize(backend.name)}`)
      const caps = backend.capabilities
      if (!ISOLATION_KINDS.includes(caps.isolation)) throw new Error(`capabilities.isolation is ${summarize(caps.isolation)}`)
      for (const key of BOOLEAN_CAPABILITIES) {
        if (typeof caps[key] !== 'boolean') throw new Error(`capabilities.${key} is ${summarize(caps[key])}, not a boolean`)
      }
    },
  },
  {
    group: 'capabilities',
    name: 'the manifest is JSON-serializable (round-trips unchanged)',
    run({ backend }) {
      const caps = backend.capabilities
      const copy: unknown = JSON.parse(JSON.stringify(caps))
      expectSameValue(copy, { ...caps }, 'the manifest after JSON.stringify/parse')
      if (Object.getPrototypeOf(caps) !== Object.prototype && Object.getPrototypeOf(caps) !== null) {
        throw new Error('the manifest should be a plain object')
      }
    },
  },
  {
    group: 'capabilities',
    name: 'stats on every result: backend name, wallMs, toolCalls, logsDropped',
    async run({ sandbox, backend }) {
      const results = await Promise.all([
        timedRun(sandbox, '1'),
        timedRun(sandbox, 'throw 1'),
        timedRun(sandbox, 'const = 1'),
        timedRun(sandbox, 'while (true) {}', { timeoutMs: 100 }),
        timedRun(sandbox, "'x'.repeat(100)", { maxOutputBytes: 50 }),
      ])
      for (const { result } of results) expectStatsShape(result.stats, backend.name)
    },
  },
  statsField('cpuMs', 'cpuTime'),
  statsField('heapBytes', 'heapStats'),
  {
    group: 'capabilities',
    name: 'syncHostCalls: a sync tool returns its value without await when declared; UNSUPPORTED and nothing runs when not',
    async run({ sandbox, backend }) {
      const code = [
        'const v = ns.inc(1)',
        "let failed = ''",
        'try { ns.fail() } catch (e) { failed = e instanceof Error ? e.message : "not an Error" }',
        "let invalid = ''",
        "try { ns.checked('x') } catch (e) { invalid = e instanceof TypeError ? 'TypeError' : String(e) }",
        '[v, typeof v.then, failed, invalid, ns.checked(5)]',
      ].join('\n')
      if (!backend.capabilities.syncHostCalls) return expectUnsupportedAndNothingRan(sandbox, code, { tools: syncTools() })
      expectSameValue(
        await runOk(sandbox, code, { tools: syncTools() }),
        [2, 'undefined', 'sync failure', 'TypeError', 5],
        'the sync calls',
      )
    },
  },
  {
    group: 'capabilities',
    name: "syncHostCalls: a sync call whose tool stops its own run leaves no answer behind for the next run's sync call",
    async run({ sandbox, backend }) {
      // Declared unsupported: the check above proves such calls never run.
      if (!backend.capabilities.syncHostCalls) return
      // The host answers the call after the stop it caused; that answer must reach no other run.
      for (let i = 0; i < 5; i++) {
        const controller = new AbortController()
        const stopping = {
          'ns.stop': { sync: true, execute: () => (controller.abort(), `run ${i} (stopped)`) },
        }
        expectError((await timedRun(sandbox, 'ns.stop()', { tools: stopping, signal: controller.signal })).result, 'ABORTED')
        const next = await runOk(sandbox, 'ns.value()', { tools: { 'ns.value': { sync: true, execute: () => `run ${i} (next)` } } })
        expectSameValue(next, `run ${i} (next)`, "the next run's sync call")
      }
    },
  },
  {
    group: 'capabilities',
    name: 'memoryLimit: an explicit memoryMb is accepted when declared; UNSUPPORTED and nothing runs when not',
    async run({ sandbox, backend }) {
      if (!backend.capabilities.memoryLimit) return expectUnsupportedAndNothingRan(sandbox, '1 + 1', { memoryMb: 64 })
      if (expectOk((await timedRun(sandbox, '1 + 1', { memoryMb: 64 })).result) !== 2) throw new Error('1 + 1 should be 2')
    },
  },
]
