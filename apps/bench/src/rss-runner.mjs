// RSS growth of the host process over back-to-back W1 runs, per 1,000 runs. RSS is the whole
// process's, so each contender is measured in a Node process of its own (rss-child.mjs) that
// loads nothing else: another contender's memory coming and going cannot move its baseline.
// RSS moves in steps (the allocator returns memory late), so after a warm-up it is read after
// a full GC at several checkpoints and the growth is the slope of a least-squares line through
// them, not the difference of two readings. Subprocess children come and go; the host's side
// is what could leak, and that is what is measured.
import { spawn } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { reasonOf } from './reason.mjs'

const MB = 1024 * 1024
const CHECKPOINTS = 6

async function settledRss() {
  // Let pools finish disposing what they dropped, then collect twice (finalizers free WASM memory).
  await sleep(50)
  globalThis.gc()
  await sleep(10)
  globalThis.gc()
  return process.memoryUsage().rss / MB
}

/** Slope of y over x by least squares. */
function slope(points) {
  const n = points.length
  const mx = points.reduce((s, [x]) => s + x, 0) / n
  const my = points.reduce((s, [, y]) => s + y, 0) / n
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0)
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0)
  return sxx === 0 ? 0 : sxy / sxx
}

export async function measureOne(c, { runs, budgetMs, warmup, warmupBudgetMs = budgetMs }) {
  // A new process's RSS grows for its first thousands of runs (JIT code, V8's young generation
  // reaching its working size), leak or not: warm up to a steady state first.
  const warmupStart = performance.now()
  for (let i = 0; i < warmup && performance.now() - warmupStart < warmupBudgetMs; i++) await c.W1()
  const points = [[0, await settledRss()]]
  const start = performance.now()
  const step = Math.ceil(runs / (CHECKPOINTS - 1))
  let done = 0
  while (done < runs && performance.now() - start < budgetMs) {
    await c.W1()
    done++
    if (done % step === 0 || done === runs) points.push([done, await settledRss()])
  }
  if (points.at(-1)[0] !== done) points.push([done, await settledRss()])
  return { runs: done, rssBeforeMb: points[0][1], rssAfterMb: points.at(-1)[1], growthMbPer1000: slope(points) * 1000 }
}

export async function measureRss(contenders, plan) {
  const chosen = contenders.filter(
    (c) => (plan.rss.contenders === undefined || plan.rss.contenders.includes(c.id)) && !c.unavailable && typeof c.W1 === 'function',
  )
  if (typeof globalThis.gc !== 'function')
    return chosen.map((c) => ({ contenderId: c.id, contender: c.name, status: 'skipped', reason: 'needs node --expose-gc' }))
  const rows = []
  for (const c of chosen) {
    const row = { contenderId: c.id, contender: c.name, engine: c.engine, status: 'ok' }
    try {
      Object.assign(row, await inOwnProcess(c.id, plan.rss))
    } catch (error) {
      Object.assign(row, { status: 'failed', reason: reasonOf(error) })
    }
    rows.push(row)
  }
  return rows
}

const CHILD = fileURLToPath(new URL('./rss-child.mjs', import.meta.url))

/** Runs measureOne for one contender in a fresh Node (same flags as this one); its last stdout line is the JSON result. */
function inOwnProcess(id, rssPlan) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, CHILD, id, JSON.stringify(rssPlan)], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => {
      const last = stdout.trim().split('\n').at(-1) ?? ''
      try {
        const result = JSON.parse(last)
        if (result.error !== undefined) reject(new Error(result.error))
        else resolve(result)
      } catch {
        reject(new Error(`the RSS process for ${id} exited with ${code}: ${stderr.trim().slice(-500) || 'no output'}`))
      }
    })
  })
}
