/**
 * The launch-plan cache, through the public factory: a first backend probes and stores its
 * decision; a fresh process reads it instead of probing; an entry that cannot be trusted or does
 * not fit is ignored and probed over; a stale plan costs a probe, never a run; `false` turns the
 * cache off. Each test gets directories of its own, so each backend decides afresh.
 */
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { createSandbox, isSandboxError } from '@cordon/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSubprocessBackend, type SubprocessBackendOptions, type SubprocessDiagnostics } from '../src/index.js'
import { descendants, valueOf } from './helpers.js'

const packageRoot = fileURLToPath(new URL('..', import.meta.url))
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cordon-plan-cache-'))
let dirs = 0
/** A cache directory no backend has used yet (not created: the backend creates it). */
const newDir = () => path.join(tmp, `plans-${++dirs}`)

/** The one entry in a cache directory. */
function entryIn(dir: string): string {
  const names = fs.readdirSync(dir).filter((name) => name.endsWith('.json'))
  expect(names).toHaveLength(1)
  return path.join(dir, names[0]!)
}

type Decision = Record<string, unknown>
const readDecision = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Decision

/** A new cache directory holding a copy of `entry` (as the cache writes them: 0700 and 0600), edited by `edit`. */
function copyOf(entry: string, edit: (decision: Decision) => void = () => {}): string {
  const dir = newDir()
  fs.mkdirSync(dir, { mode: 0o700 })
  const decision = readDecision(entry)
  edit(decision)
  fs.writeFileSync(path.join(dir, path.basename(entry)), JSON.stringify(decision), { mode: 0o600 })
  return dir
}

/** One run of `1 + 2` on a new backend, and what it says about its launch plan. */
async function runOnce(options: SubprocessBackendOptions): Promise<{ value: unknown; diagnostics: SubprocessDiagnostics }> {
  const backend = createSubprocessBackend({ engine: 'node-vm', ...options })
  const sandbox = createSandbox(backend)
  try {
    const value = valueOf(await sandbox.run('1 + 2'))
    return { value, diagnostics: await backend.diagnose() }
  } finally {
    await sandbox.dispose()
  }
}

/** Runs `1 + 2` in a fresh Node process on the built package, with `dir` as its cache. */
function runInFreshProcess(dir: string, engine = 'auto'): Promise<{ value: unknown; diagnostics: SubprocessDiagnostics }> {
  const script = `
    import { createSandbox } from '@cordon/core'
    import { createSubprocessBackend } from ${JSON.stringify(pathToFileURL(path.join(packageRoot, 'dist/index.js')).href)}
    const backend = createSubprocessBackend({ launchPlanCache: process.env.PLAN_DIR, engine: ${JSON.stringify(engine)} })
    const sandbox = createSandbox(backend)
    const result = await sandbox.run('1 + 2')
    const diagnostics = await backend.diagnose()
    process.stdout.write(JSON.stringify({ value: result.ok ? result.value : result.error, diagnostics }) + '\\n')
    await sandbox.dispose()
  `
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: packageRoot,
      env: { ...process.env, PLAN_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      const line = out.split('\n')[0] ?? ''
      try {
        resolve(JSON.parse(line) as { value: unknown; diagnostics: SubprocessDiagnostics })
      } catch {
        reject(new Error(`the fresh process (exit ${code}) wrote ${JSON.stringify(out)}; stderr: ${err}`))
      }
    })
  })
}

/** The permission flag this Node refuses, if it refuses one: a plan with it cannot start a child. */
const refusedFlag = ['--permission', '--experimental-permission'].find(
  (flag) => spawnSync(process.execPath, [flag, '-e', '0'], { stdio: 'ignore' }).status !== 0,
)

let probedDir: string
let probedEntry: string
let probed: SubprocessDiagnostics

beforeAll(async () => {
  probedDir = newDir()
  ;({ diagnostics: probed } = await runOnce({ launchPlanCache: probedDir }))
  probedEntry = entryIn(probedDir)
})
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true })
})

describe('launch-plan cache', () => {
  it('a first backend probes, and stores only its decision (directory 0700, file 0600)', () => {
    expect(probed.launchPlan).toEqual({ source: 'probed', file: probedEntry })
    expect(fs.statSync(probedDir).mode & 0o777).toBe(0o700)
    expect(fs.statSync(probedEntry).mode & 0o777).toBe(0o600)
    const text = fs.readFileSync(probedEntry, 'utf8')
    const decision = JSON.parse(text) as Decision
    expect(decision.permissionFlag).toBe(probed.permissionFlag)
    expect(decision.nodeVersion).toBe(process.versions.node)
    expect(path.basename(probedEntry)).toBe(`${String(decision.key)}.json`)
    // Paths are found again when the entry is read, never taken from it.
    expect(text).not.toContain(process.execPath)
    expect(text).not.toMatch(/\/(s?bin)\//)
  })

  it('a fresh process reads the entry instead of probing, and its run gives the right value', async () => {
    const before = fs.statSync(probedEntry).mtimeMs
    const { value, diagnostics } = await runInFreshProcess(probedDir, 'node-vm')
    expect(value).toBe(3)
    expect(diagnostics.launchPlan?.source).toBe('cache')
    expect(diagnostics.launchPlan?.file).toBe(probedEntry)
    expect(diagnostics.permissionFlag).toBe(probed.permissionFlag)
    expect(diagnostics.layers.length).toBe(probed.layers.length)
    expect(diagnostics.network).toBe(probed.network)
    expect(fs.statSync(probedEntry).mtimeMs).toBe(before)
  })

  it.runIf(process.platform === 'linux')(
    "engine 'auto' remembers in the entry the engine it checked; the next fresh process starts that engine without a check",
    async () => {
      const dir = copyOf(probedEntry)
      const entry = entryIn(dir)
      const first = await runInFreshProcess(dir)
      expect(first.value).toBe(3)
      expect(first.diagnostics.engine).toBe('isolated-vm')
      expect(first.diagnostics.launchPlan).toMatchObject({ source: 'cache', file: entry, engine: 'isolated-vm' })
      const stored = readDecision(entry)
      expect(stored.engine).toBe('isolated-vm')
      // The same decision otherwise, from the same probe.
      expect({ ...stored, engine: undefined }).toEqual({ ...readDecision(probedEntry), engine: undefined })
      const written = fs.statSync(entry).mtimeMs
      const second = await runInFreshProcess(dir)
      expect(second.value).toBe(3)
      expect(second.diagnostics.engine).toBe('isolated-vm')
      expect(second.diagnostics.notes.join('\n')).toContain(
        'engine isolated-vm: the launch-plan cache remembers isolated-vm passing its check with this plan',
      )
      expect(fs.statSync(entry).mtimeMs).toBe(written)
    },
  )

  it.runIf(process.platform === 'linux')(
    'a remembered engine that no longer loads costs a check, never the run: it goes to the engine chosen, and the entry forgets it',
    async () => {
      // A Node that refuses native addons: isolated-vm cannot load in its children, QuickJS can.
      // Beside the cache, in a folder any user may enter (children may run as nobody).
      const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'cordon-node-without-addons-'))
      fs.chmodSync(bin, 0o755)
      const wrapper = path.join(bin, 'node')
      fs.writeFileSync(wrapper, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --no-addons "$@"\n`, { mode: 0o755 })
      try {
        const probedHere = newDir()
        await runOnce({ launchPlanCache: probedHere, nodePath: wrapper })
        // As the entry would be had isolated-vm loaded when it was checked; a directory of its own,
        // so that this process's backends have not decided with it yet.
        const dir = copyOf(entryIn(probedHere), (decision) => (decision.engine = 'isolated-vm'))
        const backend = createSubprocessBackend({ launchPlanCache: dir, nodePath: wrapper })
        const sandbox = createSandbox(backend)
        try {
          expect(valueOf(await sandbox.run('[1, 2].length + 1'))).toBe(3)
          const diagnostics = await backend.diagnose()
          expect(diagnostics.engine).toBe('quickjs')
          expect(diagnostics.notes.join('\n')).toMatch(/engine isolated-vm: .*addons/i)
          expect(readDecision(entryIn(dir)).engine).toBeUndefined()
        } finally {
          await sandbox.dispose()
        }
      } finally {
        fs.rmSync(bin, { recursive: true, force: true })
      }
    },
  )

  it('a backend of this process with another cache directory holding the entry reads it too', async () => {
    const dir = copyOf(probedEntry)
    const { value, diagnostics } = await runOnce({ launchPlanCache: dir })
    expect(value).toBe(3)
    expect(diagnostics.launchPlan?.source).toBe('cache')
  })

  it.runIf(process.platform === 'linux').each(['auto', 'isolated-vm'] as const)(
    "with the plan in the cache, prepare() starts the first engine child before it returns (engine '%s')",
    async (engine) => {
      const backend = createSubprocessBackend({ engine, launchPlanCache: copyOf(probedEntry) })
      const sandbox = createSandbox(backend)
      try {
        // By pid, not by count: children of earlier tests may still be exiting meanwhile.
        const before = new Set(descendants(process.pid))
        backend.prepare!()
        // No await in between: the child exists while core would still be checking the first program.
        expect(descendants(process.pid).filter((pid) => !before.has(pid))).not.toHaveLength(0)
        expect(valueOf(await sandbox.run('1 + 2'))).toBe(3)
        const diagnostics = await backend.diagnose()
        expect(diagnostics.launchPlan?.source).toBe('cache')
        expect(diagnostics.engine).toBe('isolated-vm')
      } finally {
        await sandbox.dispose()
      }
    },
  )

  it('other settings are another entry', async () => {
    const dir = copyOf(probedEntry)
    const { diagnostics } = await runOnce({ launchPlanCache: dir, networkIsolation: 'off' })
    expect(diagnostics.launchPlan?.source).toBe('probed')
    expect(fs.readdirSync(dir).filter((name) => name.endsWith('.json'))).toHaveLength(2)
  })
})

describe('a cache that cannot be trusted, or does not fit, is ignored and probed over', () => {
  const root = process.getuid?.() === 0
  const cases: [string, (dir: string, entry: string) => void, RegExp, boolean][] = [
    ['a directory others may write to', (dir) => fs.chmodSync(dir, 0o777), /writable by group or others/, false],
    ['an entry others may write to', (_dir, entry) => fs.chmodSync(entry, 0o666), /writable by group or others/, true],
    ['an entry that is a symbolic link', (dir, entry) => linkInstead(dir, entry), /symbolic link/, true],
    ['an entry that is not JSON', (_dir, entry) => fs.writeFileSync(entry, '{"format": 1, '), /not JSON/, true],
    [
      'an entry with an unknown permission flag',
      (_dir, entry) => edit(entry, (d) => (d.permissionFlag = '--allow-all')),
      /permissionFlag/,
      true,
    ],
    ['an entry stored under another key', (_dir, entry) => edit(entry, (d) => (d.key = '0'.repeat(64))), /another key/, true],
    [
      'an entry with a data ceiling but no baseline',
      (_dir, entry) => edit(entry, (d) => Object.assign(d, { layers: { ...(d.layers as object), dataLimit: true }, baselineKb: null })),
      /baselineKb/,
      true,
    ],
  ]
  if (root) cases.push(['an entry owned by another user', (_dir, entry) => fs.chownSync(entry, 65534, 65534), /owned by uid 65534/, true])

  it.each(cases)('%s', async (_name, spoil, note, rewritten) => {
    const dir = copyOf(probedEntry)
    const entry = path.join(dir, path.basename(probedEntry))
    spoil(dir, entry)
    const { value, diagnostics } = await runOnce({ launchPlanCache: dir })
    expect(value).toBe(3)
    expect(diagnostics.launchPlan?.source).toBe('probed')
    expect(diagnostics.notes.join('\n')).toMatch(note)
    if (rewritten) {
      // The directory is ours: the probed decision replaces the entry, as a file of our own.
      expect(diagnostics.launchPlan?.file).toBe(entry)
      const stat = fs.lstatSync(entry)
      expect(stat.isFile() && stat.uid === process.getuid?.() && (stat.mode & 0o777) === 0o600).toBe(true)
      expect(readDecision(entry).permissionFlag).toBe(probed.permissionFlag)
    } else {
      // Nothing is written where others may write.
      expect(diagnostics.launchPlan?.file).toBeUndefined()
    }
  })
})

describe.runIf(refusedFlag !== undefined)('a cached plan this Node cannot start', () => {
  const stale = () => copyOf(probedEntry, (decision) => (decision.permissionFlag = refusedFlag))

  it.each(['node-vm', 'quickjs', 'auto'] as const)(
    'is dropped, probed again and rewritten, and the run still succeeds (engine %s)',
    async (engine) => {
      const dir = stale()
      const { value, diagnostics } = await runOnce({ launchPlanCache: dir, engine })
      expect(value).toBe(3)
      expect(diagnostics.launchPlan?.source).toBe('probed')
      expect(diagnostics.notes.join('\n')).toMatch(/did not start a child .*bad option.*: probed again/)
      expect(readDecision(entryIn(dir)).permissionFlag).toBe(probed.permissionFlag)
    },
  )

  it('a session opened first gets a child too', async () => {
    const dir = stale()
    const backend = createSubprocessBackend({ engine: 'node-vm', launchPlanCache: dir })
    const sandbox = createSandbox(backend)
    try {
      const session = await sandbox.createSession()
      expect(valueOf(await session.run('1 + 2'))).toBe(3)
      await session.dispose()
      expect((await backend.diagnose()).launchPlan?.source).toBe('probed')
    } finally {
      await sandbox.dispose()
    }
  })

  it('warm() probes again and leaves started spares', async () => {
    const dir = stale()
    const backend = createSubprocessBackend({ engine: 'node-vm', launchPlanCache: dir })
    try {
      await backend.warm()
      const diagnostics = await backend.diagnose()
      expect(diagnostics.launchPlan?.source).toBe('probed')
      expect(readDecision(entryIn(dir)).permissionFlag).toBe(probed.permissionFlag)
    } finally {
      await backend.dispose()
    }
  })
})

describe('old entries', () => {
  it('writing an entry removes other entries past 30 days or beyond the 16 newest, and stale temporary files; nothing else', async () => {
    const dir = newDir()
    fs.mkdirSync(dir, { mode: 0o700 })
    const day = 24 * 60 * 60 * 1000
    const now = Date.now()
    const place = (name: string, ageMs: number) => {
      const file = path.join(dir, name)
      fs.writeFileSync(file, '{}', { mode: 0o600 })
      fs.utimesSync(file, (now - ageMs) / 1000, (now - ageMs) / 1000)
      return file
    }
    const hex = (i: number) => i.toString(16).padStart(64, '0')
    // 18 recent entries, a day apart, and two past 30 days.
    const recent = Array.from({ length: 18 }, (_, i) => place(`${hex(i)}.json`, (i + 1) * day))
    const old = [place(`${hex(100)}.json`, 31 * day), place(`${hex(101)}.json`, 400 * day)]
    const staleTemp = place(`.${hex(200)}.123.abcdef.tmp`, 2 * 60 * 60 * 1000)
    const freshTemp = place(`.${hex(201)}.124.abcdef.tmp`, 0)
    const notOurs = place('notes.txt', 400 * day)
    const target = place('target', 400 * day)
    const link = path.join(dir, `${hex(300)}.json`)
    fs.symlinkSync(target, link)
    const { diagnostics } = await runOnce({ launchPlanCache: dir })
    expect(diagnostics.launchPlan?.source).toBe('probed')
    // lstat: the link itself, not what it points to.
    const exists = (file: string) => fs.lstatSync(file, { throwIfNoEntry: false }) !== undefined
    expect(exists(diagnostics.launchPlan!.file!)).toBe(true)
    expect(recent.map(exists)).toEqual([...Array(16).fill(true), false, false])
    expect(old.map(exists)).toEqual([false, false])
    expect([exists(staleTemp), exists(freshTemp)]).toEqual([false, true])
    expect([exists(notOurs), exists(target), exists(link)]).toEqual([true, true, true])
  })
})

describe('turning the cache off, and where it is by default', () => {
  it('launchPlanCache: false writes nothing; the default is $XDG_CACHE_HOME/cordon/launch-plans', async () => {
    const xdg = path.join(tmp, 'xdg')
    const saved = process.env.XDG_CACHE_HOME
    process.env.XDG_CACHE_HOME = xdg
    try {
      const off = await runOnce({ launchPlanCache: false })
      expect(off.diagnostics.launchPlan).toEqual({ source: 'probed' })
      expect(fs.existsSync(xdg)).toBe(false)
      const on = await runOnce({})
      expect(on.diagnostics.launchPlan?.file).toBe(entryIn(path.join(xdg, 'cordon', 'launch-plans')))
    } finally {
      if (saved === undefined) delete process.env.XDG_CACHE_HOME
      else process.env.XDG_CACHE_HOME = saved
    }
  })

  it('a launchPlanCache that is not an absolute directory path or false is INVALID_OPTIONS', () => {
    for (const launchPlanCache of ['', 'relative/plans', true, 0, null]) {
      let thrown: unknown
      try {
        createSubprocessBackend({ launchPlanCache } as never)
      } catch (error) {
        thrown = error
      }
      expect(isSandboxError(thrown, 'INVALID_OPTIONS'), String(launchPlanCache)).toBe(true)
    }
  })
})

function edit(entry: string, change: (decision: Decision) => void): void {
  const decision = readDecision(entry)
  change(decision)
  fs.writeFileSync(entry, JSON.stringify(decision))
}

/** Replaces the entry by a symbolic link to a copy of it elsewhere. */
function linkInstead(dir: string, entry: string): void {
  const elsewhere = path.join(tmp, `elsewhere-${path.basename(dir)}.json`)
  fs.renameSync(entry, elsewhere)
  fs.symlinkSync(elsewhere, entry)
}
