// cordon's isolated-vm backend next to raw isolated-vm doing the same work by hand, in one
// process, interleaved in rounds so machine noise hits every contender alike.
//   node --no-node-snapshot bench/latency.mjs [--quick] [--json=<file>]   (after `pnpm build`)
// W1: a fresh run of `return 1 + 1`. W2: 1,000 sequential `await host.echo(i)` in one run.
import { mkdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { createSandbox } from '@cordon/core'
import { createIvmBackend } from '../dist/index.js'

const quick = process.argv.includes('--quick')
const json = process.argv.find((a) => a.startsWith('--json='))?.slice('--json='.length)
const rounds = quick ? 10 : 40
const w1PerRound = quick ? 10 : 25
const w2PerRound = quick ? 1 : 3
const calls = 1000

// The same isolated-vm the backend loads on this Node (7, 6 or 5, by ABI).
const require = createRequire(new URL('../package.json', import.meta.url))
const [ivmName, ivm] = ['isolated-vm', 'isolated-vm-6', 'isolated-vm-5'].map((n) => [n, tryRequire(n)]).find(([, m]) => m) ?? []
if (!ivm) throw new Error('no isolated-vm loads here (run with --no-node-snapshot, on Node)')
function tryRequire(name) {
  try {
    return require(name)
  } catch {
    return undefined
  }
}
const ivmVersion = require(`${ivmName}/package.json`).version

/** Raw floor for W1: new isolate + context, run, copy the value out, dispose. */
async function rawReturn() {
  const isolate = new ivm.Isolate({ memoryLimit: 128 })
  const context = await isolate.createContext()
  const value = await context.eval('(function () { return 1 + 1 })()', { copy: true })
  isolate.dispose()
  check(value, 2)
}

/** Raw floor for W2: an async host function behind a Reference, awaited from the guest. */
async function rawEcho() {
  const isolate = new ivm.Isolate({ memoryLimit: 128 })
  const context = await isolate.createContext()
  await context.global.set('echo', new ivm.Reference(async (i) => i))
  const code = `(async () => { let s = 0; for (let i = 0; i < ${calls}; i++) s += await echo.apply(undefined, [i], { result: { promise: true, copy: true } }); return s })()`
  const value = await context.eval(code, { promise: true, copy: true })
  isolate.dispose()
  check(value, (calls * (calls - 1)) / 2)
}

const pooled = createSandbox(createIvmBackend())
const unpooled = createSandbox(createIvmBackend({ poolSize: 0 }))
const echoTools = { 'host.echo': { execute: (i) => i } }
const echoProgram = `let s = 0\nfor (let i = 0; i < ${calls}; i++) s += await host.echo(i)\nreturn s`
const viaSandbox = (sandbox, code, expected, options) => async () => {
  const r = await sandbox.run(code, options)
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`)
  check(r.value, expected)
}
function check(value, expected) {
  if (value !== expected) throw new Error(`expected ${expected}, got ${value}`)
}

const workloads = [
  {
    name: 'W1 return 1 + 1',
    perRound: w1PerRound,
    contenders: {
      'raw isolated-vm (new isolate per run)': rawReturn,
      'cordon ivm (warm pool of 2)': viaSandbox(pooled, 'return 1 + 1', 2),
      'cordon ivm (no pool)': viaSandbox(unpooled, 'return 1 + 1', 2),
    },
  },
  {
    name: `W2 ${calls} sequential tool calls`,
    perRound: w2PerRound,
    contenders: {
      'raw isolated-vm (Reference, promise result)': rawEcho,
      'cordon ivm (warm pool of 2)': viaSandbox(pooled, echoProgram, (calls * (calls - 1)) / 2, { tools: echoTools, maxToolCalls: calls }),
    },
  },
]

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]
const results = []
for (const w of workloads) {
  const entries = Object.entries(w.contenders)
  for (const [, fn] of entries) for (let i = 0; i < 5; i++) await fn() // warm-up: JIT, pool fill
  const samples = Object.fromEntries(entries.map(([name]) => [name, []]))
  for (let round = 0; round < rounds; round++) {
    for (const [name, fn] of entries) {
      for (let i = 0; i < w.perRound; i++) {
        const start = performance.now()
        await fn()
        samples[name].push(performance.now() - start)
      }
    }
  }
  const floor = median(samples[entries[0][0]])
  for (const [name] of entries) {
    const m = median(samples[name])
    results.push({
      workload: w.name,
      contender: name,
      medianMs: m,
      p95Ms: p95(samples[name]),
      vsRaw: m / floor,
      runs: samples[name].length,
    })
  }
}
await pooled.dispose()
await unpooled.dispose()

console.log(`node ${process.version}, ${ivmName}@${ivmVersion}, ${new Date().toISOString().slice(0, 10)}, ${quick ? 'quick' : 'full'} mode`)
console.log('| workload | contender | median ms | p95 ms | × raw |')
console.log('| --- | --- | --- | --- | --- |')
for (const r of results) {
  const perCall = r.workload.startsWith('W2') ? ` (${((r.medianMs * 1000) / calls).toFixed(1)} µs/call)` : ''
  console.log(`| ${r.workload} | ${r.contender} | ${r.medianMs.toFixed(3)}${perCall} | ${r.p95Ms.toFixed(3)} | ${r.vsRaw.toFixed(2)} |`)
}
if (json) {
  mkdirSync(dirname(json), { recursive: true })
  writeFileSync(json, JSON.stringify({ node: process.version, isolatedVm: ivmVersion, results }, null, 2))
}
