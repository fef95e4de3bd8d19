// W6: W1 with IN_FLIGHT runs in flight, in batches that take turns like latency rounds.
// A batch is timed from its first start to its last finish; no pause between its runs, so a
// pool must keep up on its own.
import { reasonOf } from './reason.mjs'
import { IN_FLIGHT } from './workloads.mjs'
import { median } from './stats.mjs'

async function batch(run, count) {
  let next = 0
  const worker = async () => {
    while (next < count) {
      next++
      await run()
    }
  }
  const start = performance.now()
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  return performance.now() - start
}

export async function measureThroughput(contenders, plan) {
  const { rounds, batch: size, budgetMs, warmup } = plan.throughput
  const rows = []
  const timed = []
  for (const c of contenders) {
    const base = { contenderId: c.id, contender: c.name, engine: c.engine }
    if (c.unavailable) rows.push({ ...base, status: 'unavailable', reason: c.unavailable })
    else if (c.W6 !== true || typeof c.W1 !== 'function') rows.push({ ...base, status: 'n/a', reason: 'no W1' })
    else if (plan.mode === 'quick' && c.skipInQuick?.W6)
      rows.push({ ...base, status: 'skipped', reason: `left out of --quick: ${c.skipInQuick.W6}` })
    else {
      const entry = { ...base, status: 'ok', run: c.W1, ready: c.ready, rates: [], runs: 0, spentMs: 0 }
      rows.push(entry)
      timed.push(entry)
    }
  }
  for (const e of timed) await guarded(e, () => batch(e.run, warmup))
  for (let round = 0; round < rounds; round++) {
    for (const e of timed.map((_, i) => timed[(i + round) % timed.length])) {
      if (e.status !== 'ok' || (e.spentMs >= budgetMs && e.rates.length > 0)) continue
      await e.ready?.()
      const ms = await guarded(e, () => batch(e.run, size))
      if (ms === undefined) continue
      e.rates.push((size * 1000) / ms)
      e.runs += size
      e.spentMs += ms
    }
  }
  return rows.map(({ run, ready, rates, spentMs, ...row }) =>
    row.status === 'ok'
      ? { ...row, batches: rates.length, runsPerSecond: median(rates), overallRunsPerSecond: (row.runs * 1000) / spentMs }
      : row,
  )
}

async function guarded(entry, body) {
  try {
    return await body()
  } catch (error) {
    entry.status = 'failed'
    entry.reason = reasonOf(error)
    return undefined
  }
}
