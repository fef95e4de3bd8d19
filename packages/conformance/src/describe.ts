import { afterAll, beforeAll, describe, it } from 'vitest'
import { attacksChecks } from './groups/attacks.js'
import { capabilitiesChecks } from './groups/capabilities.js'
import { concurrencyChecks } from './groups/concurrency.js'
import { dosChecks } from './groups/dos.js'
import { errorsChecks } from './groups/errors.js'
import { eventsChecks } from './groups/events.js'
import { fetchChecks } from './groups/fetch.js'
import { durableChecks } from './groups/durable.js'
import { faultChecks, type FaultHarness } from './groups/faults.js'
import { modulesChecks } from './groups/modules.js'
import { admissionChecks } from './groups/admission.js'
import { tracesChecks } from './groups/traces.js'
import { inspectorChecks } from './groups/inspector.js'
import { isolationChecks } from './groups/isolation.js'
import { lifecycleChecks } from './groups/lifecycle.js'
import { limitsChecks } from './groups/limits.js'
import { logsChecks } from './groups/logs.js'
import { normalizationChecks } from './groups/normalization.js'
import { poisoningChecks } from './groups/poisoning.js'
import { preemptionChecks } from './groups/preemption.js'
import { toolsChecks } from './groups/tools.js'
import { sessionsChecks } from './groups/sessions.js'
import { valuesChecks } from './groups/values.js'
import { checkTimeoutMs, createGroupFixture, resolveConformanceOptions, runCheckOn, skipReason, warmUp } from './runner.js'
import type { GroupFixture } from './runner.js'
import type { BackendFactory, ConformanceCheck, ConformanceGroup, ConformanceOptions } from './types.js'

const HOOK_TIMEOUT_MS = 30_000

/** Every check, by group, in the order the aggregate describer runs them. */
export const conformanceGroups: Readonly<Record<ConformanceGroup, readonly ConformanceCheck[]>> = Object.freeze({
  capabilities: capabilitiesChecks,
  values: valuesChecks,
  errors: errorsChecks,
  normalization: normalizationChecks,
  logs: logsChecks,
  tools: toolsChecks,
  limits: limitsChecks,
  isolation: isolationChecks,
  concurrency: concurrencyChecks,
  lifecycle: lifecycleChecks,
  sessions: sessionsChecks,
  attacks: attacksChecks,
  dos: dosChecks,
  poisoning: poisoningChecks,
  preemption: preemptionChecks,
  events: eventsChecks,
  fetch: fetchChecks,
  durable: durableChecks,
  modules: modulesChecks,
  admission: admissionChecks,
  traces: tracesChecks,
  inspector: inspectorChecks,
})

export const conformanceChecks: readonly ConformanceCheck[] = Object.values(conformanceGroups).flat()

/**
 * Registers one vitest `describe` block for a list of checks: a fresh backend and sandbox
 * for the block, one test per check, skipped where the backend's capabilities say the
 * check does not apply (each declared "no" has its own UNSUPPORTED check instead).
 */
export function describeChecks(
  title: string,
  checks: readonly ConformanceCheck[],
  factory: BackendFactory,
  options: ConformanceOptions = {},
): void {
  const resolved = resolveConformanceOptions(options)
  describe(title, () => {
    let fixture: GroupFixture | undefined
    beforeAll(async () => {
      fixture = await createGroupFixture(factory, resolved.sandboxDefaults)
      await warmUp(fixture)
    }, HOOK_TIMEOUT_MS)
    afterAll(async () => {
      await fixture?.dispose()
    }, HOOK_TIMEOUT_MS)
    for (const check of checks) {
      const timeout = checkTimeoutMs(check, resolved) + 1_000
      const gap = resolved.knownGaps[check.name]
      ;(gap === undefined ? it : it.fails)(
        gap === undefined ? check.name : `${check.name} [known gap: ${gap}]`,
        async (test) => {
          if (fixture === undefined) throw new Error('the backend factory failed; see beforeAll')
          const reason = skipReason(check, fixture.backend.capabilities)
          if (reason !== undefined) test.skip(reason)
          await runCheckOn(check, fixture, factory, resolved)
        },
        timeout,
      )
    }
  })
}

function describer(group: ConformanceGroup) {
  return (factory: BackendFactory, options?: ConformanceOptions): void =>
    describeChecks(`cordon conformance: ${group}`, conformanceGroups[group], factory, options)
}

export const describeValues = describer('values')
export const describeErrors = describer('errors')
export const describeNormalization = describer('normalization')
export const describeLogs = describer('logs')
export const describeTools = describer('tools')
export const describeLimits = describer('limits')
export const describeIsolation = describer('isolation')
export const describeConcurrency = describer('concurrency')
export const describeLifecycle = describer('lifecycle')
export const describeCapabilities = describer('capabilities')
export const describeSessions = describer('sessions')
export const describeAttacks = describer('attacks')
export const describeDos = describer('dos')
export const describePoisoning = describer('poisoning')
export const describePreemption = describer('preemption')
export const describeEvents = describer('events')
export const describeFetch = describer('fetch')
export const describeDurable = describer('durable')
export const describeModules = describer('modules')
export const describeAdmission = describer('admission')
export const describeTraces = describer('traces')
export const describeInspector = describer('inspector')

/**
 * Every group (or `options.groups`), each with its own backend and sandbox. To keep the
 * millisecond-measuring groups off a shared machine, register `SHARED_GROUPS` in one file and
 * `QUIET_GROUPS` in another that runs alone.
 */
export function describeBackendConformance(factory: BackendFactory, options?: ConformanceOptions): void {
  const { groups, knownGaps } = resolveConformanceOptions(options)
  for (const group of groups) {
    if (!(group in conformanceGroups)) throw new Error(`no conformance group named ${JSON.stringify(group)}`)
  }
  const registered = new Set(groups.flatMap((group) => conformanceGroups[group].map((check) => check.name)))
  for (const name of Object.keys(knownGaps)) {
    if (!registered.has(name)) throw new Error(`knownGaps names no check of the groups registered: ${JSON.stringify(name)}`)
  }
  for (const group of Object.keys(conformanceGroups) as ConformanceGroup[]) if (groups.includes(group)) describer(group)(factory, options)
}

const FAULT_CHECK_TIMEOUT_MS = 30_000

/**
 * The faults group: what happens to runs when the process (or server) that runs them dies from
 * outside, or one of its runs runs out of memory. Not in the aggregate: it needs a harness that
 * can find and kill the backend's runners, which only the backend's own tests can provide.
 */
export function describeFaults(harness: FaultHarness): void {
  describe('cordon conformance: faults', () => {
    for (const check of faultChecks) it(check.name, () => check.run(harness), FAULT_CHECK_TIMEOUT_MS)
  })
}
