// W1 latency: a fresh run of `return 1 + 1` per contender, interleaved in rounds so
// machine noise hits every contender alike. Reports medians and ratios from one run.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { loadContenders } from './contenders.mjs'
import { formatMs, summarize } from './stats.mjs'

const args = process.argv.slice(2)
const quick = args.includes('--quick')
const outIndex = args.indexOf('--out')
const out = outIndex >= 0 ? args[outIndex + 1] : undefined
const rounds = quick ? 20 : 200
const perRound = quick ? 5 : 10
const warmup = quick ? 10 : 50

const contenders = await loadContenders()
const active = contenders.filter((c) => !c.skipped)
for (const c of active) for (let i = 0; i < warmup; i++) await c.run()

const samples = new Map(active.map((c) => [c.name, []]))
for (let round = 0; round < rounds; round++) {
  for (const c of active) {
    for (let i = 0; i < perRound; i++) {
      const start = performance.now()
      await c.run()
      samples.get(c.name).push(performance.now() - start)
    }
  }
}
for (const c of active) await c.dispose()

const raw = summarize(samples.get('raw quickjs-emscripten')).median
const rows = active.map((c) => {
  const s = summarize(samples.get(c.name))
  return { name: c.name, ...s, vsRawQuickJS: s.median / raw }
})
console.log(`W1 fresh run of 'return 1 + 1' — ${rounds} rounds × ${perRound} runs, node ${process.version}`)
console.log('| contender | median ms | p95 ms | × raw quickjs |')
console.log('| --- | --- | --- | --- |')
for (const r of rows) console.log(`| ${r.name} | ${formatMs(r.median)} | ${formatMs(r.p95)} | ${r.vsRawQuickJS.toFixed(2)} |`)
for (const c of contenders.filter((c) => c.skipped)) console.log(`| ${c.name} | skipped: ${c.skipped} | | |`)

if (out) {
  mkdirSync(dirname(out), { recursive: true })
  // `passed` lets the repository's test summary count the benchmark's smoke run.
  writeFileSync(out, JSON.stringify({ passed: 1, failed: 0, rows, node: process.version, date: new Date().toISOString() }, null, 2))
}
