// What two of core's features cost, each against the same work without it:
// - onEvent on W5 (1,000 `console.log` lines): a run with a listener that receives every event
//   (1,000 log events and the result) against the same run without one;
// - admission control on W6 (W1 with 8 runs in flight): throughput of a sandbox with
//   `maxConcurrentRuns: 8` (every run admitted at once: the cost of counting) and with
//   `maxConcurrentRuns: 4, maxQueueMs` (half the runs wait their turn) against one without.
// Samples alternate between the variants so that machine noise hits them alike. Prints Markdown.
//   node --no-node-snapshot src/feature-cost.mjs [--quick] [--only cordon-quickjs,cordon-ivm] [--out file.json]
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { createIvmBackend } from '@cordon/backend-ivm'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
import { createSubprocessBackend } from '@cordon/backend-subprocess'
import { createSandbox } from '@cordon/core'
import { formatMs, formatRate, median, summarize } from './stats.mjs'
import { CORDON_PROGRAMS, IN_FLIGHT, LOG_LINES, checkLogLines, expectEqual } from './workloads.mjs'

const args = process.argv.slice(2)
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined)
const quick = args.includes('--quick')
const W5_SAMPLES = quick ? 5 : 30
const W6_BATCHES = quick ? 3 : 12
const W6_BATCH = quick ? 32 : 128
const BACKENDS = {
  'cordon-quickjs': () => createQuickJSBackend(),
  'cordon-ivm': () => createIvmBackend(),
  'cordon-subprocess': () => createSubprocessBackend(),
}
const only = option('--only')?.split(',') ?? Object.keys(BACKENDS)
const BASE = { timeoutMs: 60_000, memoryMb: 128 }

async function timeW5(sandbox, withListener) {
  let events = 0
  const onEvent = withListener ? () => void events++ : undefined
  const started = performance.now()
  const result = await sandbox.run(CORDON_PROGRAMS.W5, { ...BASE, maxLogEntries: LOG_LINES, onEvent })
  const ms = performance.now() - started
  if (!result.ok) throw new Error(`W5: ${result.error.code}: ${result.error.message}`)
  checkLogLines(result.logs.map((entry) => entry.message))
  if (withListener) expectEqual('W5 events (each line and the result)', events, LOG_LINES + 1)
  return ms
}

/** W1 runs, IN_FLIGHT at a time, until `count` are done; runs per second. */
async function w6Batch(sandbox, count) {
  let next = 0
  const worker = async () => {
    while (next < count) {
      next++
      const result = await sandbox.run(CORDON_PROGRAMS.W1, BASE)
      if (!result.ok) throw new Error(`W6: ${result.error.code}: ${result.error.message}`)
      expectEqual('W6', result.value, 3)
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  return (count * 1000) / (performance.now() - started)
}

const W6_VARIANTS = {
  'no admission control': {},
  [`maxConcurrentRuns: ${IN_FLIGHT}`]: { maxConcurrentRuns: IN_FLIGHT },
  [`maxConcurrentRuns: ${IN_FLIGHT / 2}, maxQueueMs: 60000`]: { maxConcurrentRuns: IN_FLIGHT / 2, maxQueueMs: 60_000 },
}

const w5Rows = []
const w6Rows = []
for (const id of only) {
  const make = BACKENDS[id]
  if (make === undefined) throw new Error(`unknown backend ${id}; one of ${Object.keys(BACKENDS).join(', ')}`)
  const sandbox = createSandbox(make())
  try {
    const plain = []
    const listened = []
    await timeW5(sandbox, false)
    await timeW5(sandbox, true)
    for (let i = 0; i < W5_SAMPLES; i++) {
      plain.push(await timeW5(sandbox, false))
      listened.push(await timeW5(sandbox, true))
    }
    const row = { contender: id, samples: W5_SAMPLES, withoutMs: median(plain), withListenerMs: median(listened) }
    w5Rows.push(row)
    console.error(`[feature-cost] ${id} W5: ${formatMs(row.withoutMs)} ms, with onEvent ${formatMs(row.withListenerMs)} ms`)
  } finally {
    await sandbox.dispose()
  }

  const sandboxes = Object.entries(W6_VARIANTS).map(([variant, defaults]) => ({
    variant,
    sandbox: createSandbox(make(), defaults),
    rates: [],
  }))
  try {
    for (const v of sandboxes) await w6Batch(v.sandbox, IN_FLIGHT * 2)
    for (let b = 0; b < W6_BATCHES; b++) {
      // Rotate who goes first, so that no variant always follows the same one.
      for (const v of sandboxes.map((_, i) => sandboxes[(i + b) % sandboxes.length])) v.rates.push(await w6Batch(v.sandbox, W6_BATCH))
    }
    for (const v of sandboxes) {
      const row = { contender: id, variant: v.variant, batches: W6_BATCHES, batch: W6_BATCH, runsPerSecond: summarize(v.rates).median }
      w6Rows.push(row)
      console.error(`[feature-cost] ${id} W6 ${v.variant}: ${formatRate(row.runsPerSecond)} runs/s`)
    }
  } finally {
    for (const v of sandboxes) await v.sandbox.dispose()
  }
}

const percent = (value, base) => `${value >= base ? '+' : ''}${(((value - base) / base) * 100).toFixed(1)} %`
const lines = [
  `### onEvent on W5 (${LOG_LINES.toLocaleString('en')} \`console.log\` lines), medians of ${W5_SAMPLES}`,
  '',
  '| contender | without a listener | with an onEvent listener | difference |',
  '| --- | ---: | ---: | ---: |',
  ...w5Rows.map(
    (r) =>
      `| ${r.contender} | ${formatMs(r.withoutMs)} ms | ${formatMs(r.withListenerMs)} ms | ${percent(r.withListenerMs, r.withoutMs)} |`,
  ),
  '',
  `### Admission control on W6 (W1 with ${IN_FLIGHT} runs in flight), median of ${W6_BATCHES} batches of ${W6_BATCH}`,
  '',
  '| contender | sandbox | runs/s | against no admission control |',
  '| --- | --- | ---: | ---: |',
  ...w6Rows.map((r) => {
    const base = w6Rows.find((o) => o.contender === r.contender && o.variant === 'no admission control')
    return `| ${r.contender} | ${r.variant} | ${formatRate(r.runsPerSecond)} | ${r === base ? '—' : percent(r.runsPerSecond, base.runsPerSecond)} |`
  }),
]
console.log(lines.join('\n'))
const out = option('--out')
if (out !== undefined) {
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, JSON.stringify({ quick, w5: w5Rows, w6: w6Rows }, null, 2))
}
