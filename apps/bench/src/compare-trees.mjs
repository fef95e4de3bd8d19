// W1, W2, W3 and W6 of each default backend in two builds of cordon, side by side in one process:
// this checkout and another one (an earlier commit, checked out and built elsewhere). It answers
// "did a change slow the run around the data path?", which the full run cannot (it has one tree).
// Each measurement runs in a Node process of its own (two builds of isolated-vm cannot share a
// process), and the trees take turns round by round, so machine noise hits both alike. Prints Markdown.
//   git worktree add ../cordon-base <commit> && (cd ../cordon-base && npx pnpm@10 install && npx pnpm@10 exec turbo run build)
//   node --no-node-snapshot src/compare-trees.mjs --base ../cordon-base [--rounds 3] [--only quickjs,ivm,subprocess]
import { spawnSync } from 'node:child_process'
import { resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { untilIdle } from './idle.mjs'
import { formatMs, formatRate, median } from './stats.mjs'
import { CORDON_PROGRAMS, ECHO_SUM, FIB_RESULT, IN_FLIGHT, TOOL_CALLS, expectEqual } from './workloads.mjs'

const args = process.argv.slice(2)
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined)
const baseDir = option('--base')
if (baseDir === undefined) {
  console.error('usage: compare-trees.mjs --base <other checkout, built> [--rounds N] [--only quickjs,ivm,subprocess]')
  process.exit(2)
}
const ROUNDS = Number(option('--rounds') ?? 3)
const W1_SAMPLES = 150
const W2_SAMPLES = 8
const W3_SAMPLES = 12
const W6_RUNS = 512
const BASE = { timeoutMs: 60_000, memoryMb: 128 }
const BACKENDS = {
  quickjs: ['backend-quickjs', 'createQuickJSBackend'],
  ivm: ['backend-ivm', 'createIvmBackend'],
  subprocess: ['backend-subprocess', 'createSubprocessBackend'],
}
const only = option('--only')?.split(',') ?? Object.keys(BACKENDS)
const here = resolve(import.meta.dirname, '../../..')
const trees = [
  { label: 'base', dir: resolve(baseDir) },
  { label: 'this', dir: here },
]

/** A sandbox on `backend` built from the packages of the checkout at `dir`. */
async function sandboxFrom(dir, backend) {
  const load = (pkg) => import(pathToFileURL(resolve(dir, 'packages', pkg, 'dist/index.js')).href)
  const [{ createSandbox }, mod] = await Promise.all([load('core'), load(BACKENDS[backend][0])])
  const sandbox = createSandbox(mod[BACKENDS[backend][1]]())
  await run(sandbox, CORDON_PROGRAMS.W1)
  return sandbox
}

async function run(sandbox, code, options) {
  const r = await sandbox.run(code, { ...BASE, ...options })
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`)
  return r.value
}

/** W1 after an idle event loop (what a request after a pause finds), median ms. */
async function w1(sandbox) {
  const samples = []
  for (let i = 0; i < W1_SAMPLES; i++) {
    await untilIdle(15)
    const started = performance.now()
    expectEqual('W1', await run(sandbox, CORDON_PROGRAMS.W1), 3)
    samples.push(performance.now() - started)
  }
  return median(samples)
}

/** W2: TOOL_CALLS sequential awaited tool calls in one run, median µs per call. */
async function w2(sandbox) {
  const tools = { 'host.echo': { execute: (i) => i } }
  const samples = []
  for (let i = 0; i < W2_SAMPLES; i++) {
    const started = performance.now()
    expectEqual('W2', await run(sandbox, CORDON_PROGRAMS.W2, { tools, maxToolCalls: TOOL_CALLS }), ECHO_SUM)
    samples.push(((performance.now() - started) * 1000) / TOOL_CALLS)
  }
  return median(samples)
}

/** W3 back to back, median ms. */
async function w3(sandbox) {
  const samples = []
  for (let i = 0; i < W3_SAMPLES; i++) {
    const started = performance.now()
    expectEqual('W3', await run(sandbox, CORDON_PROGRAMS.W3), FIB_RESULT)
    samples.push(performance.now() - started)
  }
  return median(samples)
}

/** W6: W6_RUNS W1 runs, IN_FLIGHT at a time, runs per second. */
async function w6(sandbox) {
  let next = 0
  const worker = async () => {
    while (next < W6_RUNS) {
      next++
      expectEqual('W6', await run(sandbox, CORDON_PROGRAMS.W1), 3)
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  return (W6_RUNS * 1000) / (performance.now() - started)
}

/** One round of one tree and backend, in this process: `--child <dir> <backend>` prints its numbers. */
async function measureHere(dir, backend) {
  const sandbox = await sandboxFrom(dir, backend)
  // A new process: warm the JIT and the pools before anything is timed.
  for (let i = 0; i < 100; i++) await run(sandbox, CORDON_PROGRAMS.W1)
  for (let i = 0; i < 3; i++) await run(sandbox, CORDON_PROGRAMS.W3)
  const numbers = { W1: await w1(sandbox), W2: await w2(sandbox), W3: await w3(sandbox), W6: await w6(sandbox) }
  await sandbox.dispose()
  return numbers
}

function measureInChild(dir, backend) {
  const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--base', dir, '--child', dir, backend], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  if (child.status !== 0) throw new Error(`measuring ${backend} in ${dir} failed (exit ${child.status})`)
  return JSON.parse(child.stdout.trim().split('\n').pop())
}

if (args.includes('--child')) {
  const at = args.indexOf('--child')
  console.log(JSON.stringify(await measureHere(resolve(args[at + 1]), args[at + 2])))
  process.exit(0)
}

const rows = []
for (const backend of only) {
  if (!(backend in BACKENDS)) throw new Error(`unknown backend ${backend}: one of ${Object.keys(BACKENDS).join(', ')}`)
  const results = trees.map(() => ({ W1: [], W2: [], W3: [], W6: [] }))
  for (let round = 0; round < ROUNDS; round++) {
    // The tree that goes first alternates, so neither always finds the machine fresher.
    for (const t of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const numbers = measureInChild(trees[t].dir, backend)
      for (const key of ['W1', 'W2', 'W3', 'W6']) results[t][key].push(numbers[key])
    }
    console.error(`${backend}: round ${round + 1} of ${ROUNDS} done`)
  }
  rows.push({ backend, results })
}

const list = (values, format) => values.map(format).join(' / ')
console.log(`| backend | tree | W1 median, ms (each round) | W2 µs per call | W3 median, ms | W6 runs/s |`)
console.log(`| --- | --- | --- | --- | --- | --- |`)
for (const { backend, results } of rows) {
  results.forEach((r, t) => {
    console.log(
      `| ${backend} | ${trees[t].label} | ${list(r.W1, formatMs)} | ${list(r.W2, (us) => us.toFixed(1))} | ${list(r.W3, formatMs)} | ${list(r.W6, formatRate)} |`,
    )
  })
}
console.log(
  `\nbase: ${trees[0].dir}; ${ROUNDS} rounds; W1 after a 15 ms idle, median of ${W1_SAMPLES}; W2 ${TOOL_CALLS} awaited tool calls in a run, median of ${W2_SAMPLES}; W3 fib(27) back to back, median of ${W3_SAMPLES}; W6 ${W6_RUNS} W1 runs, ${IN_FLIGHT} in flight.`,
)
