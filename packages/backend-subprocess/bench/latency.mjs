// Median latency of `return 1+1` through createSandbox(...).run on a warm pool, against
// spawning a plain `node -e` per run. Run after `pnpm build`: node bench/latency.mjs [runs]
import { spawn } from 'node:child_process'
import { createSandbox } from '@cordon/core'
import { createSubprocessBackend } from '../dist/index.js'

const runs = Number(process.argv[2] ?? 50)
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const min = (values) => Math.min(...values)
const fmt = (ms) => `${ms.toFixed(2)} ms`

async function time(fn) {
  const start = performance.now()
  await fn()
  return performance.now() - start
}

const backend = createSubprocessBackend()
const sandbox = createSandbox(backend)
console.log('launch:', (await backend.diagnose()).layers.join(', ') || 'no wrappers')
await backend.warm()
for (let i = 0; i < 5; i++) await sandbox.run('return 1+1') // JIT the host side

// 1. Warm pool: wait until the pool is full and ready before each run, then time the run.
const warm = []
for (let i = 0; i < runs; i++) {
  await backend.warm()
  warm.push(
    await time(async () => {
      const result = await sandbox.run('return 1+1')
      if (!result.ok || result.value !== 2) throw new Error(JSON.stringify(result))
    }),
  )
}

// 2. Back to back: no waiting, so the pool refills while runs go on (bounded by spawn rate).
const backToBack = []
const started = performance.now()
for (let i = 0; i < runs; i++) backToBack.push(await time(() => sandbox.run('return 1+1')))
const perSecond = (runs / (performance.now() - started)) * 1000
await sandbox.dispose()

// 3. A plain `node -e` per run: spawn, evaluate, read stdout, exit.
const plain = []
for (let i = 0; i < Math.min(runs, 30); i++) {
  plain.push(
    await time(
      () =>
        new Promise((resolve, reject) => {
          const child = spawn(process.execPath, ['-e', 'process.stdout.write(String(1+1))'], { stdio: ['ignore', 'pipe', 'ignore'] })
          let out = ''
          child.stdout.on('data', (d) => (out += d))
          child.on('close', () => (out === '2' ? resolve() : reject(new Error(out))))
        }),
    ),
  )
}

console.log(`node ${process.version}, ${runs} runs`)
console.log(`warm pool, run():        median ${fmt(median(warm))}, best ${fmt(min(warm))}`)
console.log(`back to back, run():     median ${fmt(median(backToBack))}, best ${fmt(min(backToBack))} (${perSecond.toFixed(1)} runs/s)`)
console.log(`plain node -e per run:   median ${fmt(median(plain))}, best ${fmt(min(plain))}`)
