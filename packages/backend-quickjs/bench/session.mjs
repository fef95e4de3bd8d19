// Sessions on the QuickJS backend: memory an idle session holds, and run latency inside a warm
// session next to one-off sandbox.run. Uses the package's build: `pnpm build`, then
// `node --expose-gc bench/session.mjs [--sessions 50] [--runs 200] [--engine quickjs-emscripten] [--inline]`.
import { createSandbox } from '@cordon/core'
import { createQuickJSBackend } from '../dist/index.js'

const MiB = 1024 * 1024
const args = process.argv.slice(2)
const option = (name, fallback) => {
  const index = args.indexOf(`--${name}`)
  return index >= 0 ? Number(args[index + 1]) : fallback
}
const sessionCount = option('sessions', 50)
const runCount = option('runs', 200)
const warmup = 20

const gc = globalThis.gc
if (typeof gc !== 'function') console.warn('no gc(): run with `node --expose-gc` for steadier RSS figures')

async function settledRss() {
  for (let i = 0; i < 3; i++) {
    gc?.()
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return process.memoryUsage().rss
}

function expectOk(result, what) {
  if (!result.ok) throw new Error(`${what}: ${result.error.code} ${result.error.message}`)
  return result.value
}

function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
  return { median: at(0.5), p95: at(0.95) }
}

const engineAt = args.indexOf('--engine')
const sandbox = createSandbox(
  createQuickJSBackend({
    engine: engineAt >= 0 ? args[engineAt + 1] : undefined,
    thread: args.includes('--inline') ? 'inline' : 'worker',
  }),
)

// (a) Memory per idle session: N sessions, each after one small run, all kept open.
{
  const warm = await sandbox.createSession()
  expectOk(await warm.run('const x = 1'), 'warm-up session')
  await warm.dispose()
  const before = await settledRss()
  const sessions = []
  for (let i = 0; i < sessionCount; i++) {
    const session = await sandbox.createSession()
    expectOk(await session.run('const x = 1'), `session ${i}`)
    sessions.push(session)
  }
  const heap = []
  for (const session of sessions) heap.push((await session.memoryUsage()).heapBytes)
  const open = await settledRss()
  await Promise.all(sessions.map((session) => session.dispose()))
  // Let go of them too, so their instances can be collected.
  sessions.length = 0
  const after = await settledRss()
  const meanHeap = heap.reduce((a, b) => a + b, 0) / heap.length
  console.log(`memory per idle session: ${sessionCount} sessions open, each after one run of \`const x = 1\` (node ${process.version})`)
  console.log('| measure | per session |')
  console.log('| --- | --- |')
  console.log(`| guest heapBytes (session.memoryUsage()) | ${(meanHeap / MiB).toFixed(2)} MiB |`)
  console.log(`| host RSS growth while open | ${((open - before) / sessionCount / MiB).toFixed(2)} MiB |`)
  console.log(`| host RSS left after dispose | ${((after - before) / sessionCount / MiB).toFixed(2)} MiB |`)
  console.log()
}

// (b) Run latency: a warm session against one-off runs of the same program.
/** Median and p95 of `runCount` runs after `warmup`; `pauseMs` between runs lets the pool refill. */
async function time(run, pauseMs = 0) {
  const samples = []
  for (let i = 0; i < warmup + runCount; i++) {
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs))
    const started = performance.now()
    await run()
    if (i >= warmup) samples.push(performance.now() - started)
  }
  return summary(samples)
}

const session = await sandbox.createSession()
expectOk(await session.run('const x = 1'), 'session setup')
const inSession = async () => expectOk(await session.run('x + 1'), 'session run')
const oneOff = async () => expectOk(await sandbox.run('const x = 1\nx + 1'), 'one-off run')
const rows = [
  ['session.run(`x + 1`) in a warm session', await time(inSession)],
  ['sandbox.run(`const x = 1; x + 1`), back to back', await time(oneOff)],
  ['sandbox.run(`const x = 1; x + 1`), 20 ms apart (pooled engine)', await time(oneOff, 20)],
]
await session.dispose()
await sandbox.dispose()

console.log(`run latency: ${runCount} runs each after ${warmup} warm-up runs`)
console.log('| run | median ms | p95 ms |')
console.log('| --- | --- | --- |')
for (const [name, { median, p95 }] of rows) console.log(`| ${name} | ${median.toFixed(2)} | ${p95.toFixed(2)} |`)
