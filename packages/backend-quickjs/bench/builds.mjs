// The two QuickJS builds of quickjs-emscripten 0.32.0 side by side: warm run latency through
// cordon (each with the buffer guard), and what the guard costs a guest that makes typed arrays.
// Uses the package's build and its dev dependencies: `pnpm build`, then
// `node bench/builds.mjs [--runs 1000] [--inline]` (--inline: engines on this thread instead of in
// worker threads). Runs alternate between the builds in rounds of 50, so a busy neighbour on a
// shared machine slows both alike.
import { createSandbox } from '@cordon/core'
import { newQuickJSWASMModuleFromVariant } from 'quickjs-emscripten-core'
import { createQuickJSBackend } from '../dist/index.js'

const args = process.argv.slice(2)
const option = (name, fallback) => {
  const index = args.indexOf(`--${name}`)
  return index >= 0 ? Number(args[index + 1]) : fallback
}
const runCount = option('runs', 1000)
const thread = args.includes('--inline') ? 'inline' : 'worker'
const round = 50

const builds = {
  'quickjs 2025-09-13 (default)': '@jitl/quickjs-wasmfile-release-sync',
  'quickjs-ng 0.12.1': '@jitl/quickjs-ng-wasmfile-release-sync',
}

const tools = { 't.add': { execute: ({ a, b }) => a + b } }
const programs = {
  '1 + 1': '1 + 1',
  '5 tool calls': 'let s = 0\nfor (let i = 0; i < 5; i++) s += await t.add({ a: i, b: 1 })\ns',
}

function expectOk(result, what) {
  if (!result.ok) throw new Error(`${what}: ${result.error.code} ${result.error.message}`)
  return result.value
}

function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
  return `median ${at(0.5).toFixed(2)} ms, p95 ${at(0.95).toFixed(2)} ms`
}

const sandboxes = {}
for (const [name, pkg] of Object.entries(builds)) {
  const backend = createQuickJSBackend({ thread, variant: pkg, wasmModule: new URL(import.meta.resolve(`${pkg}/wasm`)) })
  sandboxes[name] = createSandbox(backend)
  // Warm-up: the module compiled, the engine image taken, the JIT of the host warm.
  for (let i = 0; i < 50; i++) expectOk(await sandboxes[name].run(programs['5 tool calls'], { tools }), name)
  await new Promise((resolve) => setTimeout(resolve, 200))
}

const samples = {}
for (let done = 0; done < runCount; done += round) {
  for (const name of Object.keys(builds)) {
    for (const [label, code] of Object.entries(programs)) {
      const list = (samples[`${name} | ${label}`] ??= [])
      for (let i = 0; i < round; i++) {
        const started = performance.now()
        expectOk(await sandboxes[name].run(code, { tools }), `${name} ${label}`)
        list.push(performance.now() - started)
      }
    }
  }
}
console.log(`sandbox.run back to back, ${runCount} runs each, thread: '${thread}' (Node ${process.versions.node}):`)
for (const [key, list] of Object.entries(samples)) console.log(`  ${key}: ${summary(list)}`)

// The guard's cost: 100,000 typed arrays made in the guest, through cordon and on the raw engine.
const loop = 'const t0 = Date.now(); let n = 0; for (let i = 0; i < 100000; i++) n += new Uint8Array(8).length; Date.now() - t0'
console.log('guest making 100,000 Uint8Arrays (guest clock, median of 5):')
for (const [name, pkg] of Object.entries(builds)) {
  const guarded = []
  const raw = []
  const module = await newQuickJSWASMModuleFromVariant((await import(pkg)).default)
  for (let i = 0; i < 5; i++) {
    guarded.push(expectOk(await sandboxes[name].run(loop, { timeoutMs: 60_000 }), name))
    const context = module.newContext()
    raw.push(context.unwrapResult(context.evalCode(loop)).consume((handle) => context.getNumber(handle)))
    context.dispose()
  }
  const median = (list) => [...list].sort((a, b) => a - b)[2]
  console.log(`  ${name}: ${median(guarded)} ms with the guard, ${median(raw)} ms raw`)
}

for (const sandbox of Object.values(sandboxes)) await sandbox.dispose()
