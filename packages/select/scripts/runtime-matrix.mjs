#!/usr/bin/env node
// Runs @cordon/select's smoke program (runtime-smoke.mjs) on real runtimes installed from
// npm (Node 20/22/24/26, Bun, Deno) and checks what each one should find. Prints one line
// per runtime and a final "N passed, N failed"; exits non-zero on any failure.
//
//   node packages/select/scripts/runtime-matrix.mjs [--runtimes=node20,node22,node24,node26,bun,deno]
//        [--dir=/tmp/cordon-runtimes] [--json=packages/select/test-results/runtime-matrix.json]
//
// Runtimes are installed under --dir (default: $CORDON_RUNTIMES_DIR or <tmp>/cordon-runtimes)
// and reused on the next run. Needs `pnpm build` first (it runs the built dist).
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkSmoke } from './runtime-expectations.mjs'

const packageDir = fileURLToPath(new URL('..', import.meta.url))
const smoke = join(packageDir, 'scripts', 'runtime-smoke.mjs')
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')))
const runtimes = (args.runtimes ?? 'node20,node22,node24,node26,bun,deno').split(',').filter(Boolean)
const dir = args.dir ?? process.env.CORDON_RUNTIMES_DIR ?? join(tmpdir(), 'cordon-runtimes')
const started = performance.now()
const systemMajor = Number(process.versions.node.split('.')[0])

if (!existsSync(join(packageDir, 'dist', 'index.js'))) {
  console.error('packages/select/dist is missing: run `pnpm build` first')
  process.exit(2)
}

/** Where each runtime's binary is, and the npm package that provides it. */
function layout(name) {
  const node = /^node(\d+)$/.exec(name)
  if (node) {
    const pkg = `node-${process.platform}-${process.arch}`
    return { kind: 'node', major: Number(node[1]), spec: `${pkg}@${node[1]}`, bin: join(dir, name, 'node_modules', pkg, 'bin', 'node') }
  }
  if (name === 'bun') return { kind: 'bun', spec: 'bun@1', bin: join(dir, name, 'node_modules', '.bin', 'bun') }
  if (name === 'deno') return { kind: 'deno', spec: 'deno@2', bin: join(dir, name, 'node_modules', '.bin', 'deno') }
  throw new Error(`unknown runtime "${name}" (use node20, node22, node24, node26, bun, deno)`)
}

function run(command, argv, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, argv, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 180_000)
    child.on('error', (error) => (stderr += String(error)))
    child.on('close', (status, signal) => {
      clearTimeout(timer)
      resolve({ status, signal, stdout, stderr })
    })
  })
}

/** Installs the runtimes that are not there yet, all at once (downloads dominate). */
async function install(names) {
  const t = performance.now()
  const missing = names
    .map((name) => ({ name, ...layout(name) }))
    .filter((r) => !(r.kind === 'node' && r.major === systemMajor) && !existsSync(r.bin))
  const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' }
  await Promise.all(
    missing.map(async (r) => {
      mkdirSync(join(dir, r.name), { recursive: true })
      const npm = await run('npm', ['i', '--prefix', join(dir, r.name), '--no-save', '--no-package-lock', r.spec], {
        env,
        timeoutMs: 300_000,
      })
      if (npm.status !== 0) console.error(`installing ${r.spec} failed:\n${npm.stderr.slice(-2000)}`)
    }),
  )
  return { installed: missing.map((r) => r.name), ms: Math.round(performance.now() - t) }
}

/** The runs to make: every runtime, plus the system Node without --no-node-snapshot. */
function plans(names) {
  const out = []
  for (const name of names) {
    const r = layout(name)
    // The system Node serves its own major: it is the one the workspace's isolated-vm was built for.
    const bin = r.kind === 'node' && r.major === systemMajor ? process.execPath : r.bin
    if (r.kind === 'node') out.push({ label: name, kind: 'node', major: r.major, bin, argv: ['--no-node-snapshot', smoke] })
    if (r.kind === 'bun') out.push({ label: name, kind: 'bun', bin, argv: [smoke] })
    if (r.kind === 'deno') out.push({ label: name, kind: 'deno', bin, argv: ['run', '-A', '--no-check', smoke] })
    if (r.kind === 'node' && r.major === systemMajor) {
      out.push({ label: `${name}-without-flag`, kind: 'node', major: r.major, bin, argv: [smoke], withoutSnapshotFlag: true })
    }
  }
  return out
}

function describe(smokeResult) {
  const parts = smokeResult.diagnosis.candidates.map((c) =>
    c.available ? `${c.name} ✓ ${c.probeMs}ms` : `${c.name} ✗ (${c.status}: ${c.reason.slice(0, 140)})`,
  )
  const p = smokeResult.preemption
  const preemption = p ? `; quickjs spin: ${p.ticks} ticks, longest gap ${p.maxGapMs}ms, abort ${p.abortMs}ms` : ''
  return `${parts.join(', ')}; chose ${smokeResult.diagnosis.chosen ?? 'nothing'}, run ${smokeResult.chosen.ms}ms${preemption}`
}

const { installed, ms: installMs } = await install(runtimes)
if (installed.length > 0) console.log(`installed ${installed.join(', ')} under ${dir} in ${(installMs / 1000).toFixed(1)}s`)

let passed = 0
let failed = 0
const results = []
for (const plan of plans(runtimes)) {
  const t = performance.now()
  if (!existsSync(plan.bin)) {
    failed++
    console.log(`✗ ${plan.label}: ${plan.bin} is missing (install failed?)`)
    continue
  }
  const env = { ...process.env }
  for (const name of ['CORDON_BACKEND', 'CORDON_DISABLE', 'NODE_OPTIONS']) delete env[name]
  const out = await run(plan.bin, plan.argv, { cwd: packageDir, env })
  const ms = Math.round(performance.now() - t)
  const line = out.stdout.split('\n').find((l) => l.startsWith('@@SMOKE@@'))
  if (!line) {
    failed++
    console.log(
      `✗ ${plan.label}: no result (exit ${out.status ?? out.signal}) ${ms}ms\n${out.stderr.slice(-3000)}${out.stdout.slice(-1000)}`,
    )
    continue
  }
  const result = JSON.parse(line.slice('@@SMOKE@@'.length))
  const checks = checkSmoke(plan, result)
  const bad = checks.filter((c) => !c.ok)
  passed += checks.length - bad.length
  failed += bad.length
  results.push({
    runtime: plan.label,
    version: result.diagnosis.runtime.version,
    ms,
    diagnoseMs: result.diagnoseMs,
    diagnosis: result.diagnosis,
    checks,
  })
  console.log(
    `${bad.length ? '✗' : '✓'} ${plan.label} (${result.diagnosis.runtime.kind} ${result.diagnosis.runtime.version}) ${ms}ms: ${describe(result)}`,
  )
  for (const c of bad) console.log(`    ✗ ${c.name}: ${c.detail}`)
}

const totalMs = Math.round(performance.now() - started)
console.log(
  `runtime matrix: ${passed} passed, ${failed} failed in ${(totalMs / 1000).toFixed(1)}s (installs ${(installMs / 1000).toFixed(1)}s)`,
)
if (args.json) {
  mkdirSync(dirname(args.json), { recursive: true })
  writeFileSync(args.json, JSON.stringify({ passed, failed, totalMs, installMs, results }, null, 2))
}
process.exit(failed === 0 ? 0 : 1)
