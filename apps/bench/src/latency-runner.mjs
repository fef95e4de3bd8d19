// Latency of W1..W5: every contender (and each of its methods) warms up, then all take turns in
// rounds so that machine noise hits them alike. Each sample is one run, timed alone; a
// contender's `ready` hook (its pool refilling) is awaited untimed before each sample.
// A back-to-back workload (W1b: `backToBack` in the plan) runs another's functions (`uses`) in
// bursts instead: no `ready`, each run starting as the one before it ends, a pause before each burst.
import { setTimeout as sleep } from 'node:timers/promises'
import { reasonOf } from './reason.mjs'
import { summarize } from './stats.mjs'

/** One row per contender × method: a function to time, or the reason there is none. */
export function entriesFor(workloadId, contenders, plan) {
  const entries = []
  for (const c of contenders) {
    const base = { contenderId: c.id, contender: c.name, engine: c.engine }
    const work = c[workloadId]
    if (c.unavailable) entries.push({ ...base, status: 'unavailable', reason: c.unavailable })
    else if (plan.mode === 'quick' && c.skipInQuick?.[workloadId])
      entries.push({ ...base, status: 'skipped', reason: `left out of --quick: ${c.skipInQuick[workloadId]}` })
    else if (typeof work === 'function') entries.push({ ...base, method: undefined, run: work, ready: c.ready })
    else if (work && typeof work === 'object') {
      for (const [method, run] of Object.entries(work)) entries.push({ ...base, method, run, ready: c.ready })
    } else entries.push({ ...base, status: 'n/a', reason: typeof work === 'string' ? work : 'not implemented' })
  }
  return entries
}

export async function measureLatency(workloadId, contenders, plan) {
  const settings = plan.latency[workloadId]
  const entries = entriesFor(settings.uses ?? workloadId, contenders, plan)
  const timed = entries.filter((e) => e.run)
  for (const e of timed) {
    e.samples = []
    e.spentMs = 0
    try {
      // Warm-up (JIT, pools, caches) spends at most half the sampling budget.
      const start = performance.now()
      for (let i = 0; i < settings.warmup && performance.now() - start < plan.budgetMs / 2; i++) await e.run()
    } catch (error) {
      fail(e, error)
    }
  }
  for (let round = 0; round < settings.rounds; round++) {
    // Rotate who goes first, so that no contender always follows the same one.
    const order = timed.map((_, i) => timed[(i + round) % timed.length])
    for (const e of order) {
      if (settings.backToBack) {
        await burst(e, settings.perRound, plan, settings.pauseMs ?? 0)
        continue
      }
      for (let i = 0; i < settings.perRound && e.status !== 'failed' && !overBudget(e, plan); i++) {
        const readyStart = performance.now()
        await e.ready?.()
        const start = performance.now()
        try {
          await e.run()
        } catch (error) {
          fail(e, error)
          break
        }
        e.samples.push(performance.now() - start)
        // The budget counts waiting for `ready` too: a subprocess pool refills at spawn speed.
        e.spentMs += performance.now() - readyStart
      }
    }
  }
  return entries.map(toRow)
}

/**
 * `count` runs one right after the other, each timed, after a quiet pause (`pauseMs`, untimed):
 * without it, the contender before this one was still refilling its pool on the same cores
 * while this burst ran (ivm's 16 isolates take ~100 ms), and each burst measured its neighbour
 * too. A lead-in run goes first, untimed: it finds the pool refilled, which W1 measures.
 */
async function burst(e, count, plan, pauseMs) {
  if (e.status === 'failed' || overBudget(e, plan)) return
  await sleep(pauseMs)
  const burstStart = performance.now()
  try {
    await e.run()
    for (let i = 0; i < count && !overBudget(e, plan, performance.now() - burstStart); i++) {
      const start = performance.now()
      await e.run()
      e.samples.push(performance.now() - start)
    }
  } catch (error) {
    fail(e, error)
  }
  e.spentMs += performance.now() - burstStart
}

const overBudget = (e, plan, moreMs = 0) => e.spentMs + moreMs >= plan.budgetMs && e.samples.length >= plan.minSamples

function fail(entry, error) {
  entry.status = 'failed'
  entry.reason = reasonOf(error)
}

function toRow(e) {
  const row = {
    contenderId: e.contenderId,
    contender: e.contender,
    engine: e.engine,
    method: e.method,
    status: e.status ?? 'ok',
    reason: e.reason,
  }
  if (row.status === 'ok') Object.assign(row, summarize(e.samples), { wallMs: e.spentMs })
  return row
}
