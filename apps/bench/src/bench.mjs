// The side-by-side benchmark: W1..W5 latency (and W1 back to back), a fresh process's first result
// (cold), W6 throughput, server load (W7), RSS growth for every contender, in one process, then the
// issue's targets. Prints Markdown; writes JSON (--out) and Markdown (--md).
//   node --no-node-snapshot --expose-gc src/bench.mjs [--quick] [--out file.json] [--md file.md] [--only id,id]
// --only takes warm and cold contender ids alike; `cold` stands for every cold contender.
import { mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname } from 'node:path'
import { COLD_IDS, measureCold } from './cold-runner.mjs'
import { CONTENDER_ORDER, loadContenders } from './contenders/index.mjs'
import { measureLatency } from './latency-runner.mjs'
import { makePlan } from './plan.mjs'
import { toMarkdown } from './report.mjs'
import { measurePreemption } from './preemption-runner.mjs'
import { measureRss } from './rss-runner.mjs'
import { measureServerLoad } from './server-load-runner.mjs'
import { checkTargets } from './targets.mjs'
import { measureThroughput } from './throughput-runner.mjs'
import { setBigDataItems } from './workloads.mjs'

const args = process.argv.slice(2)
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined)
const plan = makePlan(args.includes('--quick'))
const only = option('--only')
  ?.split(',')
  .flatMap((id) => (id === 'cold' ? COLD_IDS : [id])) ?? [...CONTENDER_ORDER, ...COLD_IDS]
const unknown = only.filter((id) => !CONTENDER_ORDER.includes(id) && !COLD_IDS.includes(id))
if (unknown.length > 0) throw new Error(`--only: no contender ${unknown.join(', ')}`)
const started = performance.now()
const progress = (what) => console.error(`[bench ${((performance.now() - started) / 1000).toFixed(1)} s] ${what}`)

setBigDataItems(plan.dataItems)
const contenders = await loadContenders(only)
const results = { latency: {}, cold: [], throughput: [], serverLoad: [], rss: [], preemption: [], targets: [] }
try {
  for (const id of Object.keys(plan.latency)) {
    progress(id)
    results.latency[id] = await measureLatency(id, contenders, plan)
  }
  progress('cold')
  results.cold = await measureCold(only, plan)
  progress('W6')
  results.throughput = await measureThroughput(contenders, plan)
  progress('server load')
  results.serverLoad = await measureServerLoad(contenders, plan)
  progress('RSS')
  results.rss = await measureRss(contenders, plan)
  progress('preemption')
  results.preemption = await measurePreemption(contenders, plan)
} finally {
  for (const c of contenders) await c.dispose?.()
}
results.targets = checkTargets(results)
results.meta = {
  mode: plan.mode,
  node: process.version,
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
  platform: `${os.platform()} ${os.release()}`,
  date: new Date().toISOString().slice(0, 10),
  command: `node ${process.execArgv.join(' ')} apps/bench/src/bench.mjs ${args.join(' ')}`.replace(/\s+/g, ' ').trim(),
  seconds: (performance.now() - started) / 1000,
}

// A measured contender is a pass; a wrong value, an error or a contender that could not load is
// a failure. Targets are not counted: timings on a shared machine are findings, not tests.
const rows = [
  ...Object.values(results.latency).flat(),
  ...results.cold,
  ...results.throughput,
  ...results.serverLoad,
  ...results.rss,
  ...results.preemption,
]
const passed = rows.filter((r) => r.status === 'ok').length
const failed = rows.filter((r) => r.status === 'failed').length + contenders.filter((c) => c.unavailable).length
const markdown = toMarkdown(results)
console.log(markdown)
progress(`done: ${passed} measured, ${failed} failed`)
for (const r of rows.filter((r) => r.status === 'failed'))
  console.error(`FAILED ${r.contender}${r.method ? ` (${r.method})` : ''}: ${r.reason}`)

const write = (file, text) => {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, text)
}
if (option('--out')) write(option('--out'), JSON.stringify({ passed, failed, ...results }, null, 2))
if (option('--md')) write(option('--md'), `${markdown}\n`)
process.exitCode = failed > 0 ? 1 : 0
