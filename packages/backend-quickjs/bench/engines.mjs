// The QuickJS engines cordon could run on, raw and side by side (see raw-engines.mjs): what a
// guest can reach (upstream memory-safety repros), what it sees (stack overflow, error lines),
// and what each costs (size, memory, start, speed, preemption). For test262, see test262.mjs.
//   node bench/engines.mjs [--rounds 200]
// Timings are medians; rounds alternate between engines so a busy neighbour slows all alike.
import { readFile } from 'node:fs/promises'
import { gzipSync } from 'node:zlib'
import { GUEST_RUNTIME_SOURCE } from '@cordon/core/backend'
import { QuickJS } from 'quickjs-wasi'
import { ENGINES, open, wasmPath } from './raw-engines.mjs'

const args = process.argv.slice(2)
const roundsAt = args.indexOf('--rounds')
const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : 200
const names = Object.keys(ENGINES)

const median = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}
const ms = (value) => `${value < 1 ? value.toFixed(3) : value.toFixed(1)} ms`
const table = (title, rows) => {
  console.log(`\n| ${title} | ${names.join(' | ')} |\n| --- |${names.map(() => ' --- |').join('')}`)
  for (const [label, cells] of rows) console.log(`| ${label} | ${cells.join(' | ')} |`)
}
const describe = (outcome) =>
  'value' in outcome
    ? String(outcome.value)
    : 'error' in outcome
      ? `throws ${outcome.error.name}: ${outcome.error.message}`
      : `engine fails: ${outcome.crash.split(/[.(]/)[0]}`

/** Runs `code` in a fresh engine and describes the outcome (the engine is discarded). */
async function probe(name, code, options) {
  const engine = await open(name, options)
  try {
    return describe(engine.evaluate(code))
  } finally {
    engine.dispose()
  }
}

// --- What a guest can reach: upstream memory-safety reports (raw engines, no cordon guard) ---
const REACH = {
  'growable SharedArrayBuffer grown to maxByteLength: bytes it never wrote': `(() => {
    let s; try { s = new SharedArrayBuffer(8, { maxByteLength: 65536 }) } catch (e) { return 'refused: ' + e.name }
    s.grow(65536); let n = 0; for (const b of new Uint8Array(s)) if (b) n++; return n + ' of 65536' })()`,
  "view made while newTarget's prototype getter empties its buffer (bellard/quickjs #478)": `(() => {
    const b = new ArrayBuffer(64, { maxByteLength: 64 }); new Uint8Array(b).fill(0xab)
    const t = function () {}.bind(); Object.defineProperty(t, 'prototype', { get() { b.resize(0); return Uint8Array.prototype } })
    try { const v = Reflect.construct(Uint8Array, [b], t); return 'length ' + v.length } catch (e) { return e.name } })()`,
  'TypedArray with() whose valueOf shrinks the buffer (bellard/quickjs #492)': `(() => {
    const b = new ArrayBuffer(4096, { maxByteLength: 4096 }); new Int32Array(b).fill(-1)
    const c = new Int32Array(b).with(0, { valueOf() { b.resize(16); return 7 } })
    return Array.prototype.slice.call(c, 4).filter((w) => w !== 0).length + ' stale elements' })()`,
  'sort comparator that shrinks the buffer (bellard/quickjs #477)': `(() => {
    const make = () => { const b = new ArrayBuffer(2048, { maxByteLength: 2048 }); const v = new Float64Array(b); for (let i = 0; i < 256; i++) v[i] = 256 - i + 0.25; return [b, v] }
    const held = new Set(make()[1]); let foreign = 0
    for (let at = 1; at < 400; at++) { const [b, v] = make(); let n = 0
      try { v.sort((x, y) => { if (++n === at) b.resize(80); return x - y }) } catch (e) { continue }
      for (const x of v) if (!held.has(x)) foreign++ }
    return foreign + ' foreign values' })()`,
  'a.length = 245; a.push(2) in a loop, then a GC (quickjs-ng #1562)': `(() => {
    for (let r = 0; r < 50; r++) { const a = []; for (let i = 0; i < 300; i++) { a.length = 245; a.push(2) } }
    const g = []; for (let i = 0; i < 200000; i++) g.push({ i }); return 'runs' })()`,
  'FinalizationRegistry held only by a WeakMap keyed by the symbol it watches (quickjs-ng #1352)': `(() => {
    for (let r = 0; r < 20; r++) {
      let key = Symbol('k'); const map = new WeakMap(); let registry = new FinalizationRegistry(() => {})
      registry.register(key, 1); map.set(key, registry); registry = null; key = null }
    const g = []; for (let i = 0; i < 200000; i++) g.push({ i }); return 'runs' })()`,
}

// --- What a guest sees ---
const SEES = {
  'line of `cannot read property` on a `const` line after a call': `(() => { try { let o
    ;[].push(1)
    const x = o.p
    } catch (e) { return e.stack.split('\\n')[0].trim() } })()`,
  'runaway recursion, caught by the guest': `(() => { let d = 0; const f = () => { d++; f() }; try { f() } catch (e) { return e.name + ' after ' + d + ' calls' } })()`,
  'runaway recursion, 100 locals a frame': `(() => { let d = 0; function f() { ${Array.from({ length: 100 }, (_, i) => `let v${i} = ${i};`).join(' ')} d++; f(); return v0 } try { f() } catch (e) { return e.name + ' after ' + d + ' calls' } })()`,
  'globals beyond ECMAScript': `['Atomics', 'performance', 'DOMException', 'structuredClone', 'queueMicrotask', 'Iterator', 'Float16Array', 'RegExp.escape', 'Error.isError'].filter((n) => { try { return (0, eval)(n) !== undefined } catch (e) { return false } }).join(', ')`,
}

async function facts() {
  const rows = [
    ['`.wasm` size (gzip)', []],
    ['linear memory of a fresh engine', []],
  ]
  for (const name of names) {
    const bytes = await readFile(wasmPath(name))
    rows[0][1].push(`${(bytes.length / 1024).toFixed(0)} KiB (${(gzipSync(bytes).length / 1024).toFixed(0)} KiB)`)
    const engine = await open(name)
    rows[1][1].push(`${(engine.memoryBytes() / 1024 / 1024).toFixed(2)} MiB`)
    engine.dispose()
  }
  table('build', rows)
}

async function behaviour(title, programs) {
  const rows = []
  for (const [label, code] of Object.entries(programs)) {
    const cells = []
    for (const name of names) cells.push(await probe(name, code))
    rows.push([label, cells])
  }
  table(title, rows)
}

async function speed() {
  const samples = {}
  const add = (label, name, value) => (samples[label] ??= Object.fromEntries(names.map((n) => [n, []])))[name].push(value)
  const fib = '(() => { const fib = (n) => (n < 2 ? n : fib(n - 1) + fib(n - 2)); return fib(22) })()'
  const json =
    '(() => { const o = Array.from({ length: 2000 }, (_, i) => ({ i, s: "x" + i, a: [i, i * 2] })); return JSON.parse(JSON.stringify(o)).length })()'
  const runtime = `globalThis.__factory = ${GUEST_RUNTIME_SOURCE}; 0`
  const wasiWasm = new WebAssembly.Module(await readFile(wasmPath(names[2])))
  const prepared = await QuickJS.create({ wasm: wasiWasm, maxStackSize: 256 * 1024 })
  prepared.evalCode(runtime).dispose()
  const snapshot = prepared.snapshot()
  prepared.dispose()
  for (let round = 0; round < rounds; round++) {
    for (const name of names) {
      let started = performance.now()
      const engine = await open(name, { interrupt: () => false })
      add('a fresh engine (instance, runtime, context)', name, performance.now() - started)
      started = performance.now()
      engine.evaluate('1 + 2')
      add('`1 + 2` in it', name, performance.now() - started)
      started = performance.now()
      engine.evaluate(runtime)
      add(`evaluating cordon's guest runtime (${(GUEST_RUNTIME_SOURCE.length / 1024).toFixed(0)} KB)`, name, performance.now() - started)
      if (round % 10 === 0) {
        started = performance.now()
        engine.evaluate(fib)
        add('fib(22), interrupt handler installed', name, performance.now() - started)
        started = performance.now()
        engine.evaluate(json)
        add('JSON round trip of 2,000 objects', name, performance.now() - started)
      }
      engine.dispose()
    }
    const started = performance.now()
    const restored = await QuickJS.restore(snapshot, { wasm: wasiWasm, maxStackSize: 256 * 1024 })
    add('an engine restored from a snapshot holding the guest runtime', names[2], performance.now() - started)
    restored.dispose()
  }
  table(
    `median of ${rounds} (10% for the loops)`,
    Object.entries(samples).map(([label, byName]) => [
      label,
      names.map((name) => (byName[name].length > 0 ? ms(median(byName[name])) : '—')),
    ]),
  )
}

async function preemption() {
  const cells = []
  for (const name of names) {
    let started = 0
    const engine = await open(name, { interrupt: () => performance.now() - started > 50 })
    started = performance.now()
    const outcome = engine.evaluate('while (true) {}')
    cells.push(`${describe(outcome)} after ${ms(performance.now() - started)}; then ${describe(engine.evaluate('1 + 2'))}`)
    engine.dispose()
  }
  table('preemption', [['`while (true) {}`, interrupted at 50 ms', cells]])
}

await facts()
await behaviour('a guest can reach (raw engine, no guard)', REACH)
await behaviour('a guest sees (stack 256 KiB)', SEES)
await preemption()
await speed()
