/**
 * The guest poisons its own realm — accessors on the prototypes, replaced JSON, iterators,
 * String/Object/Reflect methods, Symbol.toPrimitive and Symbol.species, a Proxy as a prototype —
 * and then returns, logs, throws and calls tools. Each program must give exactly what it gives
 * in an unpoisoned realm, and no poisoned accessor may run for cordon's own work (each one logs
 * when it runs, so an extra log line is cordon reaching into what the guest rewrote).
 */
import type { RunResult, Sandbox } from '@cordon/core'
import { expectHealthy, summarize, timedRun } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import { timedSessionRun } from '../harness/session-run.js'
import type { ConformanceCheck } from '../types.js'
import { POISON_PRELUDE, POISONS, type Poison } from './poisoning-poisons.js'
import { POISONED_PROGRAMS, poisoningTools, type PoisonedProgram } from './poisoning-programs.js'
import { test262StyleChecks } from './poisoning-test262.js'

/** A poisoned run that hangs fails the check long before the group's own bound. */
const RUN_BUDGET_MS = 5_000
const RUN_TIMEOUT_MS = 3_000

/** What must not change: the outcome, the value or the error's code, name and message, and the logs. */
function expectSameOutcome(actual: RunResult, expected: RunResult, what: string): void {
  const logs = (r: RunResult) => r.logs.map((entry) => `${entry.level}: ${entry.message}`)
  expectSameValue(logs(actual), logs(expected), `${what}: the logs`)
  if (expected.ok) {
    if (!actual.ok) throw new Error(`${what}: expected an ok result, got ${summarize(actual)}`)
    expectSameValue(actual.value, expected.value, `${what}: the value`)
    return
  }
  if (actual.ok) throw new Error(`${what}: expected ${expected.error.code}, got ${summarize(actual)}`)
  const pick = (r: typeof expected) => ({ code: r.error.code, name: r.error.name, message: r.error.message })
  expectSameValue(pick(actual), pick(expected), `${what}: the error`)
}

function programsFor(syncHostCalls: boolean): readonly PoisonedProgram[] {
  return POISONED_PROGRAMS.filter((program) => syncHostCalls || program.sync !== true)
}

async function baseline(sandbox: Sandbox, program: PoisonedProgram): Promise<RunResult> {
  const options = { timeoutMs: RUN_TIMEOUT_MS, ...program.options?.() }
  return (await timedRun(sandbox, program.body, options, RUN_BUDGET_MS)).result
}

function poisonCheck(poison: Poison): ConformanceCheck {
  return {
    group: 'poisoning',
    name: `${poison.name}: results, errors, logs and tool calls are what an unpoisoned realm gives`,
    timeoutMs: 60_000,
    async run({ sandbox, backend }) {
      for (const program of programsFor(backend.capabilities.syncHostCalls)) {
        const expected = await baseline(sandbox, program)
        const code = `${POISON_PRELUDE}\n${poison.source}\n${program.body}`
        const options = { timeoutMs: RUN_TIMEOUT_MS, ...program.options?.() }
        const { result } = await timedRun(sandbox, code, options, RUN_BUDGET_MS)
        expectSameOutcome(result, expected, `"${program.name}" after the poison`)
      }
      await expectHealthy(sandbox, 'the poisoned runs')
    },
  }
}

/** In a session the poison stays for the runs that follow: the next install and runs must hold too. */
function sessionPoisonCheck(poison: Poison): ConformanceCheck {
  return {
    group: 'poisoning',
    name: `${poison.name}, in an earlier run of a session: later runs are unaffected`,
    requires: { sessions: true },
    timeoutMs: 60_000,
    async run({ sandbox, backend }) {
      const sync = backend.capabilities.syncHostCalls
      const session = await sandbox.createSession({ tools: poisoningTools(sync), timeoutMs: RUN_TIMEOUT_MS })
      try {
        const poisoned = await timedSessionRun(session, `${POISON_PRELUDE}\n${poison.source}\nreturn 'poisoned'`, {}, RUN_BUDGET_MS)
        if (!poisoned.result.ok) throw new Error(`the poisoning run failed: ${summarize(poisoned.result)}`)
        for (const program of programsFor(sync)) {
          const expected = await baseline(sandbox, program)
          const { globals, maxOutputBytes } = program.options?.() ?? {}
          // A block of its own: top-level declarations of one program must not clash with the next's.
          const { result } = await timedSessionRun(session, `{\n${program.body}\n}`, { globals, maxOutputBytes }, RUN_BUDGET_MS)
          expectSameOutcome(result, expected, `"${program.name}" in a later run of the session`)
          if (session.ended !== undefined) throw new Error(`the session ended after "${program.name}": ${session.ended.code}`)
        }
      } finally {
        await session.dispose()
      }
    },
  }
}

/**
 * A `get` on Object.prototype makes every plain descriptor object of the realm invalid. Node's vm
 * hands V8 such an object when a global of a vm context is written: Node 20 then aborts the
 * process (a guest on a backend built on node:vm ends its own child that way), Node 26 throws a
 * TypeError into the guest. The run must end (its value, that TypeError, or BACKEND_CRASHED where
 * the engine dies) and the next run must work.
 */
const descriptorAbortCheck: ConformanceCheck = {
  group: 'poisoning',
  name: 'a get on Object.prototype, then a new global: the run ends with its value, a TypeError or BACKEND_CRASHED, and the next run works',
  async run({ sandbox }) {
    const code =
      "Object.defineProperty(Object.prototype, 'get', { get() { return undefined }, configurable: true })\nglobalThis.fresh = 1\nreturn fresh"
    const { result } = await timedRun(sandbox, code, { timeoutMs: RUN_TIMEOUT_MS }, RUN_BUDGET_MS)
    const fine = result.ok
      ? result.value === 1
      : result.error.code === 'BACKEND_CRASHED' || (result.error.code === 'RUNTIME_ERROR' && result.error.name === 'TypeError')
    if (!fine) throw new Error(`expected the value 1, a RUNTIME_ERROR TypeError or BACKEND_CRASHED, got ${summarize(result)}`)
    await expectHealthy(sandbox, 'a get on Object.prototype')
  },
}

/** cordon writes JSON itself: a guest's toJSON, even one that never returns, is never called for it. */
const loopingToJsonCheck: ConformanceCheck = {
  group: 'poisoning',
  name: 'a looping toJSON on Array.prototype and Object.prototype never runs while the result or tool arguments are encoded',
  async run({ sandbox }) {
    const poison = 'Array.prototype.toJSON = Object.prototype.toJSON = function () { for (;;) {} }\n'
    const options = { timeoutMs: RUN_TIMEOUT_MS, tools: poisoningTools() }
    const returned = await timedRun(sandbox, `${poison}return [1, { a: [2] }]`, options, RUN_BUDGET_MS)
    expectSameOutcome(returned.result, { ok: true, value: [1, { a: [2] }], logs: [], stats: returned.result.stats }, 'the result')
    const echoed = await timedRun(sandbox, `${poison}return await ns.echo({ list: [1] })`, options, RUN_BUDGET_MS)
    expectSameOutcome(echoed.result, { ok: true, value: { list: [1] }, logs: [], stats: echoed.result.stats }, 'the tool call')
  },
}

export const poisoningChecks: readonly ConformanceCheck[] = [
  ...POISONS.map(poisonCheck),
  ...POISONS.map(sessionPoisonCheck),
  ...test262StyleChecks,
  descriptorAbortCheck,
  loopingToJsonCheck,
]
