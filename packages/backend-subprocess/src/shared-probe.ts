import { dropCachedPlan, openPlanCache, planCacheDir, readCachedPlan, writeCachedPlan, type PlanCacheSlot } from './launch-plan-cache.js'
import type { RememberedEngine } from './launch-plan-decision.js'
import type { InitMessage } from './messages.js'
import type { ResolvedOptions } from './options.js'
import { probeLaunch, type Diagnostics, type LaunchResult } from './probe.js'

/**
 * How children are launched here, decided once per settings and shared by the backends of this
 * process: read from the launch-plan cache, else probed (see probe.ts) and cached. A plan from
 * the cache is trusted once a child has started with it; if its first children do not start,
 * `failed` drops the entry and probes again, so a stale entry costs time, never a run.
 */
export interface Launcher {
  plan: () => Promise<LaunchResult>
  /**
   * The decision without waiting, when there is one: made already in this process, or read from
   * the cache now. A backend that has it starts its first child at once, before core checks and
   * normalizes the first program; otherwise (a probe is needed or under way) `plan` waits for it.
   */
  known: () => LaunchResult | undefined
  /** A child launched with `result`'s plan started. */
  started: (result: LaunchResult) => void
  /** Whether `result`'s plan came from the cache and no child has started with it yet. */
  unproven: (result: LaunchResult) => boolean
  /**
   * Children launched with `result`'s plan did not start (`reason`). For an unproven plan: the
   * probe that replaces it (one for all callers), to retry with once; else undefined (the
   * failure is real).
   */
  failed: (result: LaunchResult, reason: string) => Promise<LaunchResult> | undefined
  /**
   * `engine: 'auto'` checked `engine` in a child of `result`'s plan and it works (`engine`), or
   * the engine it remembered did not load (undefined): kept with the decision, and in its cache
   * entry, for the backends that start with it later (see StoredDecision.engine).
   */
  rememberEngine: (result: LaunchResult, engine: RememberedEngine | undefined) => void
}

const decisions = new Map<string, Promise<LaunchResult>>()
/** The decisions of `decisions` that are made and worked, for `known`. */
const settled = new Map<string, LaunchResult>()
const proven = new WeakSet<LaunchResult>()
const replacements = new WeakMap<LaunchResult, Promise<LaunchResult>>()
/** The cache entry each decision was read from or written to. */
const slots = new WeakMap<LaunchResult, PlanCacheSlot>()

export function sharedLauncher(settings: ResolvedOptions, init: InitMessage, exposeProcess: boolean): Launcher {
  // On first use, not at construction: the default cache directory comes from the environment.
  let key: string | undefined
  const keyOf = () =>
    (key ??= JSON.stringify([settings.nodePath, settings.networkIsolation, exposeProcess, planCacheDir(settings.launchPlanCache) ?? null]))
  const unproven = (result: LaunchResult) => result.ok && result.diagnostics.launchPlan?.source === 'cache' && !proven.has(result)
  return {
    plan: () => decisions.get(keyOf()) ?? share(keyOf(), decide(settings, init, exposeProcess)),
    known: () => {
      const made = settled.get(keyOf())
      if (made !== undefined || decisions.has(keyOf())) return made
      const notes: string[] = []
      const slot = openPlanCache(settings, exposeProcess, notes)
      const cached = slot === undefined ? undefined : readCachedPlan(slot, notes)
      if (cached === undefined) {
        // A miss: the probe starts now, with what was read (`plan` finds it under way).
        void share(keyOf(), decide(settings, init, exposeProcess, undefined, { slot, notes }))
        return undefined
      }
      if (slot !== undefined) slots.set(cached, slot)
      void share(keyOf(), Promise.resolve(cached))
      settled.set(keyOf(), cached)
      return cached
    },
    started: (result) => void proven.add(result),
    unproven,
    failed: (result, reason) => {
      if (!unproven(result)) return undefined
      let again = replacements.get(result)
      if (again === undefined) {
        const stale = { file: result.ok ? result.diagnostics.launchPlan?.file : undefined, reason }
        again = share(keyOf(), decide(settings, init, exposeProcess, stale))
        replacements.set(result, again)
      }
      return again
    },
    rememberEngine: (result, engine) => {
      if (!result.ok || result.diagnostics.launchPlan?.engine === engine) return
      const plan: NonNullable<Diagnostics['launchPlan']> = { ...(result.diagnostics.launchPlan ?? { source: 'probed' }) }
      if (engine === undefined) delete plan.engine
      else plan.engine = engine
      result.diagnostics.launchPlan = plan
      const slot = slots.get(result)
      const notes: string[] = []
      if (slot !== undefined) writeCachedPlan(slot, result, notes)
      for (const note of notes) if (!result.diagnostics.notes.includes(note)) result.diagnostics.notes.push(note)
    },
  }
}

/** Starts sharing a decision. Success is shared with later backends; a failure stays with the backends that asked, so a new backend probes again. */
function share(key: string, decided: Promise<LaunchResult>): Promise<LaunchResult> {
  const shared = decided.catch((error: unknown): LaunchResult => {
    const reason = `probing the child launch failed: ${(error as Error)?.message ?? String(error)}`
    return { ok: false, reason, diagnostics: { available: false, reason, layers: [], network: 'unknown', notes: [] } }
  })
  void shared.then((result) => {
    if (decisions.get(key) !== shared) return
    if (result.ok) settled.set(key, result)
    else decisions.delete(key)
  })
  // A decision that replaces another (a stale cache entry probed over) is not known until made.
  settled.delete(key)
  decisions.set(key, shared)
  return shared
}

/**
 * The cached decision, else a probe (then cached). With `stale`: that entry's plan did not start
 * a child, so it is dropped and probed. With `missed`: the cache was opened and read already
 * (`known`), and had no entry.
 */
async function decide(
  settings: ResolvedOptions,
  init: InitMessage,
  exposeProcess: boolean,
  stale?: { file: string | undefined; reason: string },
  missed?: { slot: ReturnType<typeof openPlanCache>; notes: string[] },
): Promise<LaunchResult> {
  const notes: string[] = missed?.notes ?? []
  const slot = missed === undefined ? openPlanCache(settings, exposeProcess, notes) : missed.slot
  if (stale !== undefined) {
    if (slot !== undefined) dropCachedPlan(slot)
    notes.push(`the cached launch plan ${stale.file ?? ''} did not start a child (${stale.reason.slice(0, 300)}): probed again`)
  } else if (slot !== undefined && missed === undefined) {
    const cached = readCachedPlan(slot, notes)
    if (cached !== undefined) {
      slots.set(cached, slot)
      return cached
    }
  }
  const result = await probeLaunch(settings, init)
  if (result.ok) {
    const written = slot !== undefined && writeCachedPlan(slot, result, notes)
    result.diagnostics.launchPlan = written ? { source: 'probed', file: slot.file } : { source: 'probed' }
    if (written) slots.set(result, slot)
  }
  // Reading and writing may find the same problem (a directory others may write to): say it once.
  for (const note of notes) if (!result.diagnostics.notes.includes(note)) result.diagnostics.notes.push(note)
  return result
}
