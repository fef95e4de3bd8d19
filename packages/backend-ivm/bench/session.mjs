// What a session costs and what it saves, in one process.
//   node --no-node-snapshot bench/session.mjs [--json=<file>]   (after `pnpm build`)
// (a) memory per idle session: 50 sessions open, each after one small run; the guest heap as
//     session.memoryUsage() reports it, and the host's RSS growth divided by 50.
// (b) run latency: 200 runs of `x + 1` in a warm session (after `const x = 1`) next to 200
//     one-off `sandbox.run('1 + 1')`, back to back and with a 5 ms pause (which lets the pool refill).
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { runInNewContext } from 'node:vm'
import { setFlagsFromString } from 'node:v8'
import { createSandbox } from '@cordon/core'
import { createIvmBackend } from '../dist/index.js'

const json = process.argv.find((a) => a.startsWith('--json='))?.slice('--json='.length)
const SESSIONS = 50
const RUNS = 200
const MB = 1024 * 1024

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc')
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function settledRss() {
  for (let i = 0; i < 3; i++) {
    gc()
    await pause(20)
  }
  return process.memoryUsage().rss
}

function valueOf(result) {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
  return result.value
}

function summary(times) {
  const sorted = [...times].sort((a, b) => a - b)
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
  return { median: round(at(0.5)), p95: round(at(0.95)), min: round(sorted[0]), max: round(sorted[sorted.length - 1]) }
}

function round(ms) {
  return Math.round(ms * 100) / 100
}

async function timeRuns(count, run, gapMs = 0) {
  const times = []
  for (let i = 0; i < count; i++) {
    if (gapMs > 0) await pause(gapMs)
    const started = performance.now()
    await run(i)
    times.push(performance.now() - started)
  }
  return summary(times)
}

const sandbox = createSandbox(createIvmBackend())

// Warm up: load isolated-vm, fill the pool, let the first sessions' costs settle.
for (let i = 0; i < 5; i++) {
  const warm = await sandbox.createSession()
  valueOf(await warm.run('const x = 1'))
  await warm.dispose()
}

// (a) memory per idle session
const rssBefore = await settledRss()
const sessions = []
for (let i = 0; i < SESSIONS; i++) {
  const session = await sandbox.createSession()
  valueOf(await session.run(`const x = ${i}\nconsole.log(x)`))
  sessions.push(session)
}
const rssAfter = await settledRss()
const heaps = []
for (const session of sessions) heaps.push((await session.memoryUsage()).heapBytes)
const memory = {
  sessions: SESSIONS,
  guestHeapMbPerSession: round(heaps.reduce((a, b) => a + b, 0) / heaps.length / MB),
  hostRssMbPerSession: round((rssAfter - rssBefore) / SESSIONS / MB),
  hostRssMbTotal: round((rssAfter - rssBefore) / MB),
}
await Promise.all(sessions.map((session) => session.dispose()))

// (b) latency
const session = await sandbox.createSession()
valueOf(await session.run('const x = 1'))
for (let i = 0; i < 20; i++) valueOf(await session.run('x + 1'))
const inSession = await timeRuns(RUNS, async () => {
  if (valueOf(await session.run('x + 1')) !== 2) throw new Error('wrong value')
})
await session.dispose()
for (let i = 0; i < 20; i++) valueOf(await sandbox.run('1 + 1'))
const oneOffBackToBack = await timeRuns(RUNS, async () => {
  if (valueOf(await sandbox.run('1 + 1')) !== 2) throw new Error('wrong value')
})
const oneOffPaused = await timeRuns(
  RUNS,
  async () => {
    if (valueOf(await sandbox.run('1 + 1')) !== 2) throw new Error('wrong value')
  },
  5,
)
await sandbox.dispose()

const report = {
  node: process.version,
  memory,
  latencyMs: {
    'session.run(`x + 1`), warm session': inSession,
    'sandbox.run(`1 + 1`), back to back': oneOffBackToBack,
    'sandbox.run(`1 + 1`), 5 ms apart': oneOffPaused,
  },
}
console.log(`Node ${report.node}`)
console.log(
  `(a) ${SESSIONS} idle sessions: guest heap ${memory.guestHeapMbPerSession} MB/session (memoryUsage), ` +
    `host RSS +${memory.hostRssMbPerSession} MB/session (+${memory.hostRssMbTotal} MB total)`,
)
console.log(`(b) latency over ${RUNS} runs (ms)`)
for (const [name, s] of Object.entries(report.latencyMs)) {
  console.log(`    ${name.padEnd(40)} median ${String(s.median).padStart(6)}  p95 ${String(s.p95).padStart(6)}  min ${s.min}  max ${s.max}`)
}
if (json) {
  mkdirSync(dirname(json), { recursive: true })
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`)
}
