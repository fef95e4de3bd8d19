/**
 * A disk cache of the probe's decision (probe.ts), so that a fresh process (a CLI, a server
 * start, a serverless cold start) skips the probe's process starts. An entry's file name is the
 * SHA-256 of everything the decision depends on (the binaries, the kernel, the user, the
 * settings, this package); it holds the decision only, and binary paths are found again when it
 * is read. The cache is trusted only where nobody else could have written it. Nothing here
 * throws: any doubt means "no entry", and the caller probes as if there were no cache.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { chooseNodeBinary, findChildEntry, findExecutable, hostUid } from './executables.js'
import type { ResolvedOptions } from './options.js'
import type { LaunchResult } from './probe.js'
import { installedVersions } from './package-versions.js'
import { decisionOf, resultOf, type PlanCacheSlot } from './launch-plan-decision.js'

export type { PlanCacheSlot } from './launch-plan-decision.js'

/** Bumped whenever what an entry holds, or what it is keyed on, changes. */
const CACHE_FORMAT = 1
const MAX_ENTRY_BYTES = 64 * 1024
/**
 * Every upgrade or rebuild (the package version, the child entry's mtime, the Node binary are in
 * the key) leaves the old entry behind: writing a new one removes the others that are older than
 * this, and all but the newest MAX_OTHER_ENTRIES. An entry still in use but pruned costs one
 * probe, after which it is written again.
 */
const PRUNE_AFTER_MS = 30 * 24 * 60 * 60 * 1000
const MAX_OTHER_ENTRIES = 16
/** A temporary file a crashed writer left: older than this, it is nobody's any more. */
const STALE_TEMP_MS = 60 * 60 * 1000
const ENTRY_NAME = /^[0-9a-f]{64}\.json$/
const TEMP_NAME = /^\.[0-9a-f]{64}\.\d+\.[0-9a-f]+\.tmp$/
/** Kernel settings and process limits that decide whether namespaces and setpriv work here. */
const KERNEL_KNOBS = [
  '/proc/sys/kernel/unprivileged_userns_clone',
  '/proc/sys/user/max_user_namespaces',
  '/proc/sys/kernel/apparmor_restrict_unprivileged_userns',
]
const STATUS_FIELDS = /^(CapEff|CapBnd|NoNewPrivs|Seccomp):.*$/gm

/** The cache directory for the `launchPlanCache` option, or undefined for none. */
export function planCacheDir(option: string | false | undefined): string | undefined {
  if (option !== undefined) return option === false ? undefined : option
  try {
    const xdg = process.env.XDG_CACHE_HOME
    const base = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache')
    return path.isAbsolute(base) ? path.join(base, 'cordon', 'launch-plans') : undefined
  } catch {
    return undefined // Deno without --allow-env / --allow-sys: no cache.
  }
}

/** This process's entry in the cache, or undefined (with a note when worth saying) where there is none. */
export function openPlanCache(settings: ResolvedOptions, exposeProcess: boolean, notes: string[]): PlanCacheSlot | undefined {
  const dir = planCacheDir(settings.launchPlanCache)
  if (dir === undefined) return undefined
  const uid = hostUid()
  if (uid === undefined) {
    notes.push('launch-plan cache not used: the process uid is unknown here')
    return undefined
  }
  try {
    // Where these cannot be found the probe explains why; there is nothing to cache.
    const node = chooseNodeBinary(settings.nodePath)
    const entry = findChildEntry()
    if ('reason' in node || 'reason' in entry) return undefined
    const wrappers: PlanCacheSlot['wrappers'] = {}
    if (process.platform === 'linux') {
      for (const name of ['prlimit', 'setpriv', 'unshare'] as const) wrappers[name] = findExecutable(name)
    }
    const nodeReal = fs.realpathSync(node.path)
    const nodeStat = fs.statSync(nodeReal)
    const material = {
      format: CACHE_FORMAT,
      version: packageVersion(),
      packages: installedVersions(),
      node: [nodeReal, nodeStat.size, nodeStat.mtimeMs, nodeStat.ino, nodeStat.dev],
      entry: [entry.path, fs.statSync(entry.path).mtimeMs],
      wrappers: Object.entries(wrappers).map(([name, found]) => [
        name,
        found ?? null,
        found === undefined ? null : fs.statSync(found).mtimeMs,
      ]),
      user: [uid, process.getgid?.() ?? null],
      system: [process.platform, process.arch, os.release(), kernelKnobs()],
      settings: [settings.nodePath ?? null, settings.networkIsolation, exposeProcess],
    }
    const key = crypto.createHash('sha256').update(JSON.stringify(material)).digest('hex')
    return { dir, file: path.join(dir, `${key}.json`), key, uid, nodePath: node.path, entryPath: entry.path, wrappers, settings }
  } catch (error) {
    notes.push(`launch-plan cache not used: ${messageOf(error)}`)
    return undefined
  }
}

/** The cached decision as a launch result, or undefined (with a note saying why, unless there is no entry). */
export function readCachedPlan(slot: PlanCacheSlot, notes: string[]): LaunchResult | undefined {
  try {
    const dirProblem = problemWith(slot.dir, fs.lstatSync(slot.dir), 'directory', slot.uid)
    if (dirProblem !== undefined) {
      notes.push(`launch-plan cache not used: ${dirProblem}`)
      return undefined
    }
    if (fs.lstatSync(slot.file).isSymbolicLink()) return ignored(slot, `${slot.file} is a symbolic link`, notes)
    // O_NOFOLLOW and fstat: what is checked is what is read, even if the name was swapped meanwhile.
    const fd = fs.openSync(slot.file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
    let text: string
    try {
      const stat = fs.fstatSync(fd)
      const problem =
        problemWith(slot.file, stat, 'file', slot.uid) ?? (stat.size > MAX_ENTRY_BYTES ? `${slot.file} is too large` : undefined)
      if (problem !== undefined) return ignored(slot, problem, notes)
      text = fs.readFileSync(fd, 'utf8')
    } finally {
      fs.closeSync(fd)
    }
    let stored: unknown
    try {
      stored = JSON.parse(text)
    } catch {
      return ignored(slot, 'it is not JSON', notes)
    }
    const result = resultOf(stored, slot)
    return typeof result === 'string' ? ignored(slot, result, notes) : result
  } catch (error) {
    // No directory or no entry yet: the usual first run, nothing to say.
    if ((error as { code?: unknown }).code !== 'ENOENT') notes.push(`launch-plan cache not read: ${messageOf(error)}`)
    return undefined
  }
}

/** Stores a probed decision (directory 0700, file 0600, written whole then renamed); false when it could not. */
export function writeCachedPlan(slot: PlanCacheSlot, result: LaunchResult & { ok: true }, notes: string[]): boolean {
  let temp: string | undefined
  try {
    fs.mkdirSync(slot.dir, { recursive: true, mode: 0o700 })
    const dirProblem = problemWith(slot.dir, fs.lstatSync(slot.dir), 'directory', slot.uid)
    if (dirProblem !== undefined) {
      notes.push(`launch-plan cache not used: ${dirProblem}`)
      return false
    }
    temp = path.join(slot.dir, `.${slot.key}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`)
    // 'wx': a fresh file of ours (O_EXCL never follows a link planted at that name).
    fs.writeFileSync(temp, `${JSON.stringify(decisionOf(result, slot.key), null, 2)}\n`, { mode: 0o600, flag: 'wx' })
    fs.renameSync(temp, slot.file)
    pruneOthers(slot)
    return true
  } catch (error) {
    notes.push(`launch-plan cache not written: ${messageOf(error)}`)
    if (temp !== undefined) fs.rmSync(temp, { force: true })
    return false
  }
}

/**
 * Removes other entries once they are old or too many (see PRUNE_AFTER_MS), and temporary files
 * crashed writers left: only regular files of ours, by name, never following a link.
 */
function pruneOthers(slot: PlanCacheSlot): void {
  try {
    const now = Date.now()
    const others: { file: string; mtimeMs: number }[] = []
    for (const name of fs.readdirSync(slot.dir)) {
      const file = path.join(slot.dir, name)
      const temp = TEMP_NAME.test(name)
      if (file === slot.file || !(temp || ENTRY_NAME.test(name))) continue
      const stat = fs.lstatSync(file, { throwIfNoEntry: false })
      if (stat === undefined || problemWith(file, stat, 'file', slot.uid) !== undefined) continue
      if (!temp) others.push({ file, mtimeMs: stat.mtimeMs })
      else if (now - stat.mtimeMs > STALE_TEMP_MS) fs.rmSync(file, { force: true })
    }
    others.sort((a, b) => b.mtimeMs - a.mtimeMs)
    for (const [index, other] of others.entries()) {
      if (index >= MAX_OTHER_ENTRIES || now - other.mtimeMs > PRUNE_AFTER_MS) fs.rmSync(other.file, { force: true })
    }
  } catch {
    // Pruning is housekeeping: an entry that cannot be removed now is removed by a later write.
  }
}

/** Forgets an entry whose plan did not start a child. */
export function dropCachedPlan(slot: PlanCacheSlot): void {
  try {
    if (problemWith(slot.dir, fs.lstatSync(slot.dir), 'directory', slot.uid) === undefined) fs.rmSync(slot.file, { force: true })
  } catch {
    // Gone already, or not ours to remove: the new entry replaces it, or the cache is not used.
  }
}

/** Why a cache directory or entry cannot be trusted, if it cannot: only its owner may have written it. */
function problemWith(file: string, stat: fs.Stats, kind: 'directory' | 'file', uid: number): string | undefined {
  if (stat.isSymbolicLink()) return `${file} is a symbolic link`
  if (kind === 'directory' ? !stat.isDirectory() : !stat.isFile()) return `${file} is not a ${kind}`
  if (stat.uid !== uid) return `${file} is owned by uid ${stat.uid}, not this process's ${uid}`
  if ((stat.mode & 0o022) !== 0) return `${file} is writable by group or others (mode ${(stat.mode & 0o777).toString(8)})`
  return undefined
}

function ignored(slot: PlanCacheSlot, why: string, notes: string[]): undefined {
  notes.push(`launch-plan cache entry ${slot.file} ignored: ${why}`)
  return undefined
}

let version: string | undefined
/** This package's version (package.json sits one folder up from both src/ and dist/). */
function packageVersion(): string {
  return (version ??= (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version)
}

function kernelKnobs(): (string | null)[] {
  const read = (file: string) => {
    try {
      return fs.readFileSync(file, 'latin1').trim()
    } catch {
      return null
    }
  }
  return [...KERNEL_KNOBS.map(read), (read('/proc/self/status') ?? '').match(STATUS_FIELDS)?.join(';') ?? null]
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
