// Where a contender's time goes in steady state: warms up, then CPU-profiles `runs` samples (with
// the same untimed `ready` wait as the benchmark) and prints the share of the profiled run time
// spent inside each named function (inclusive), for the README's "what bounds it" notes.
//   node --no-node-snapshot src/profile.mjs <contender-id> <W1..W5> [runs] [fn,fn,...]
import { Session } from 'node:inspector/promises'
import { loadContenders } from './contenders/index.mjs'

const [id = 'cordon-quickjs', workload = 'W1', runsArg = '300', focusArg = ''] = process.argv.slice(2)
const runs = Number(runsArg)
const [contender] = await loadContenders([id])
if (contender.unavailable) throw new Error(contender.unavailable)
const run = contender[workload]
if (typeof run !== 'function') throw new Error(`${id} has no single ${workload} function`)

for (let i = 0; i < 30; i++) await run()
const session = new Session()
session.connect()
await session.post('Profiler.enable')
await session.post('Profiler.setSamplingInterval', { interval: 100 })
let timedMs = 0
await session.post('Profiler.start')
for (let i = 0; i < runs; i++) {
  await contender.ready?.()
  const start = performance.now()
  await run()
  timedMs += performance.now() - start
}
const { profile } = await session.post('Profiler.stop')
session.disconnect()
await contender.dispose()

// Inclusive time per function name: a sample counts once for every distinct name on its stack.
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const parentOf = new Map()
for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id)
const inclusiveMs = new Map()
profile.samples.forEach((sample, i) => {
  const names = new Set()
  for (let at = sample; at !== undefined; at = parentOf.get(at)) names.add(byId.get(at).callFrame.functionName)
  for (const name of names) inclusiveMs.set(name, (inclusiveMs.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000)
})

console.log(`${contender.name} ${workload}: ${runs} runs, ${(timedMs / runs).toFixed(3)} ms mean timed run`)
const focus = focusArg ? focusArg.split(',') : [...inclusiveMs.keys()].sort((a, b) => inclusiveMs.get(b) - inclusiveMs.get(a)).slice(0, 25)
for (const name of focus) {
  const ms = inclusiveMs.get(name) ?? 0
  console.log(`${(ms / runs).toFixed(3).padStart(8)} ms/run ${((ms / timedMs) * 100).toFixed(1).padStart(5)}%  ${name || '(anonymous)'}`)
}
