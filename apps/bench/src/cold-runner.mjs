// Cold: a user's first contact. Each sample is a fresh `node` process that imports the package,
// makes what a first run needs and prints the result of `1 + 2` (cold-child.mjs, or a command
// of its own); timed from spawn() to the first stdout line ("first result") and to the exit.
// The contenders take turns in rounds, the first one rotating, one process at a time.
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { reasonOf } from './reason.mjs'
import { summarize } from './stats.mjs'

const CHILD = fileURLToPath(new URL('./cold-child.mjs', import.meta.url))
/** A process that has not exited by then is killed and its row fails. */
const TIMEOUT_MS = 60_000

const require = createRequire(import.meta.url)
const version = (pkg) => require(`${pkg}/package.json`).version

/** The `cordon` bin of @cordon/cli (a workspace dependency, so it is built before the bench). */
function cliPath() {
  const manifest = require.resolve('@cordon/cli/package.json')
  return resolve(dirname(manifest), require(manifest).bin.cordon)
}

/**
 * Starts a daemon in a runtime folder of its own; resolves the environment that reaches it and
 * a function that stops it and removes the folder.
 */
function daemonAround() {
  const runtime = mkdtempSync(join(tmpdir(), 'cordon-bench-runtime-'))
  chmodSync(runtime, 0o700)
  const env = { ...process.env, XDG_RUNTIME_DIR: runtime }
  const cli = (...args) => spawnSync(process.execPath, [cliPath(), 'daemon', ...args], { env, encoding: 'utf8' })
  const started = cli('start', '--idle', '600')
  if (started.status !== 0) {
    rmSync(runtime, { recursive: true, force: true })
    throw new Error(`cordon daemon start exited ${started.status}: ${started.stderr.trim()}`)
  }
  return {
    env: { XDG_RUNTIME_DIR: runtime },
    end: () => {
      cli('stop')
      rmSync(runtime, { recursive: true, force: true })
    },
  }
}

/** Node's arguments for one contender: flags (none unless its package needs one) and what to run. */
function child(id, flags = []) {
  return () => [...flags, CHILD, id]
}

export const COLD_CONTENDERS = [
  { id: 'node-p', name: "`node -p '1 + 2'` (Node's own start, the floor)", args: () => ['-p', '1 + 2'] },
  {
    id: 'raw-quickjs-wasi-cold',
    name: () => `raw quickjs-wasi ${version('quickjs-wasi')} (QuickJS.create, evalCode)`,
    args: child('raw-quickjs-wasi-cold'),
  },
  { id: 'cordon-quickjs-cold', name: 'cordon QuickJS (createSandbox, first run)', args: child('cordon-quickjs-cold') },
  // isolated-vm needs --no-node-snapshot on Node 20+.
  {
    id: 'cordon-ivm-cold',
    name: 'cordon ivm (createSandbox, first run; node --no-node-snapshot)',
    args: child('cordon-ivm-cold', ['--no-node-snapshot']),
  },
  { id: 'cordon-subprocess-cold', name: 'cordon subprocess (createSandbox, first run)', args: child('cordon-subprocess-cold') },
  // A plain `node app.mjs`: no flags, so @cordon/select chooses what works without them.
  {
    id: 'cordon-select-cold',
    name: '@cordon/select (await createSandbox(), first run)',
    args: child('cordon-select-cold'),
    // The child prints the backend's name after the value.
    note: (backend) => `chose ${backend}`,
  },
  // A first contact: a daemon the machine's user may have started is not asked.
  {
    id: 'cordon-cli-cold',
    name: "`cordon run -e '1 + 2'` (the CLI)",
    args: () => [cliPath(), 'run', '-e', '1 + 2'],
    env: { CORDON_NO_DAEMON: '1' },
  },
  // Later calls, with `cordon daemon start` run once before (its own runtime folder, stopped after).
  {
    id: 'cordon-cli-daemon',
    name: "`cordon run -e '1 + 2'` with `cordon daemon` running",
    args: () => [cliPath(), 'run', '-e', '1 + 2'],
    around: daemonAround,
  },
  { id: 'peer-run-cold', name: () => `run ${version('run')} (peer: run({ source }))`, args: child('peer-run-cold') },
  {
    id: 'peer-sebastianwessel-cold',
    name: () => `@sebastianwessel/quickjs ${version('@sebastianwessel/quickjs')} (peer: loadQuickJs, runSandboxed)`,
    args: child('peer-sebastianwessel-cold'),
  },
]

export const COLD_IDS = COLD_CONTENDERS.map((c) => c.id)

/** One fresh process: ms to its first stdout line and to its exit, the line, and how it ended. */
function sample(args, env) {
  return new Promise((done) => {
    const start = performance.now()
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } })
    const timer = setTimeout(() => proc.kill('SIGKILL'), TIMEOUT_MS)
    let stdout = ''
    let stderr = ''
    let firstMs
    let exitMs
    proc.stdout.on('data', (chunk) => {
      stdout += chunk
      if (firstMs === undefined && stdout.includes('\n')) firstMs = performance.now() - start
    })
    proc.stderr.on('data', (chunk) => (stderr += chunk))
    proc.on('exit', () => (exitMs = performance.now() - start))
    proc.on('error', (error) => {
      clearTimeout(timer)
      done({ error })
    })
    proc.on('close', (code, signal) => {
      clearTimeout(timer)
      done({ firstMs, exitMs, line: stdout.split('\n')[0], code, signal, stderr })
    })
  })
}

/** The sample's times, or why it failed: a value other than 3, a non-zero exit, a kill. */
function check(s) {
  if (s.error) throw s.error
  const tail = s.stderr.trim().split('\n').at(-1)
  if (s.signal) throw new Error(`killed by ${s.signal} (no exit within ${TIMEOUT_MS / 1000} s)`)
  if (s.code !== 0) throw new Error(`exited with code ${s.code}: ${tail || 'no stderr'}`)
  if (s.firstMs === undefined) throw new Error(`no line on stdout: ${JSON.stringify(s.line.slice(0, 200))}`)
  const [value, ...note] = s.line.trim().split(' ')
  if (value !== '3') throw new Error(`expected 3 as the first stdout line, got ${JSON.stringify(s.line.slice(0, 200))}`)
  return { firstMs: s.firstMs, exitMs: s.exitMs, note: note.join(' ') || undefined }
}

/** A package that is not installed fails its row when sampled, not the whole benchmark here. */
function nameOf(c) {
  try {
    return typeof c.name === 'function' ? c.name() : c.name
  } catch {
    return c.id
  }
}

export async function measureCold(ids, plan) {
  const { warmup, rounds } = plan.cold
  const entries = COLD_CONTENDERS.filter((c) => ids.includes(c.id)).map((c) => ({
    contenderId: c.id,
    contender: nameOf(c),
    args: c.args,
    env: c.env,
    around: c.around,
    describe: c.note ?? ((text) => text),
    first: [],
    exit: [],
    notes: new Set(),
  }))
  const take = async (e, keep) => {
    if (e.status === 'failed') return
    try {
      const s = check(await sample(e.args(), e.env))
      if (!keep) return
      e.first.push(s.firstMs)
      e.exit.push(s.exitMs)
      if (s.note) e.notes.add(e.describe(s.note))
    } catch (error) {
      e.status = 'failed'
      e.reason = reasonOf(error)
    }
  }
  const ends = []
  for (const e of entries.filter((entry) => entry.around !== undefined)) {
    try {
      const around = e.around()
      e.env = { ...e.env, ...around.env }
      ends.push(around.end)
    } catch (error) {
      e.status = 'failed'
      e.reason = reasonOf(error)
    }
  }
  try {
    // Warm-up: the OS's file cache holds each package's files, as after an install and a first use.
    for (let i = 0; i < warmup; i++) for (const e of entries) await take(e, false)
    for (let round = 0; round < rounds; round++) {
      for (const e of entries.map((_, i) => entries[(i + round) % entries.length])) await take(e, true)
    }
  } finally {
    for (const end of ends) end()
  }
  return entries.map(toRow)
}

function toRow(e) {
  const row = { contenderId: e.contenderId, contender: e.contender, status: e.status ?? 'ok', reason: e.reason }
  if (row.status !== 'ok') return row
  const first = summarize(e.first)
  const exit = summarize(e.exit)
  return {
    ...row,
    note: e.notes.size > 0 ? [...e.notes].join(', ') : undefined,
    n: first.n,
    firstMedian: first.median,
    firstP95: first.p95,
    firstMin: first.min,
    exitMedian: exit.median,
    exitP95: exit.p95,
  }
}
