/**
 * Where the daemon of this CLI build listens: a Unix socket in a folder only this user may
 * enter. The socket's name is keyed on the build (version, install folder, the built entry's
 * mtime, the Node that runs it), so a CLI never talks to a daemon of another build.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export interface DaemonPlace {
  dir: string
  socket: string
  /** Where a daemon started by `cordon daemon start` writes what it has to say. */
  log: string
}

/** The daemon's folder, socket and log for this user and build; undefined where there can be none (Windows, no uid). */
export function daemonPlace(env: NodeJS.ProcessEnv = process.env): DaemonPlace | undefined {
  const uid = process.getuid?.()
  if (process.platform === 'win32' || uid === undefined) return undefined
  const runtime = env.XDG_RUNTIME_DIR
  const dir = runtime !== undefined && path.isAbsolute(runtime) ? path.join(runtime, 'cordon') : path.join(os.tmpdir(), `cordon-${uid}`)
  const key = buildKey()
  return { dir, socket: path.join(dir, `daemon-${key}.sock`), log: path.join(dir, `daemon-${key}.log`) }
}

let key: string | undefined
function buildKey(): string {
  if (key !== undefined) return key
  // dist/ holds the built CLI (this module is one of its chunks); package.json is beside it.
  const dist = path.dirname(fileURLToPath(import.meta.url))
  const manifest = path.join(dist, '..', 'package.json')
  const entry = path.join(dist, 'cli.js')
  const stamp = (file: string) => {
    try {
      return fs.statSync(file).mtimeMs
    } catch {
      return null
    }
  }
  const material = [fs.realpathSync(dist), stamp(entry), stamp(manifest), process.execPath, process.version]
  return (key = crypto.createHash('sha256').update(JSON.stringify(material)).digest('hex').slice(0, 16))
}

/** Why `dir` cannot hold the daemon's socket, or undefined: a real folder of this user that nobody else may enter. */
export function dirProblem(dir: string): string | undefined {
  let stat: fs.Stats
  try {
    stat = fs.lstatSync(dir)
  } catch (error) {
    return `${dir} cannot be read: ${(error as Error).message}`
  }
  if (stat.isSymbolicLink()) return `${dir} is a symbolic link`
  if (!stat.isDirectory()) return `${dir} is not a directory`
  if (stat.uid !== process.getuid?.()) return `${dir} is owned by uid ${stat.uid}, not this user's`
  if ((stat.mode & 0o077) !== 0) return `${dir} may be entered by group or others (mode ${(stat.mode & 0o777).toString(8)})`
  return undefined
}

/** Makes the folder (0700) unless it is there; why it cannot be used, or undefined. */
export function makeDir(dir: string): string | undefined {
  try {
    fs.mkdirSync(dir, { mode: 0o700 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return `${dir} cannot be made: ${(error as Error).message}`
  }
  return dirProblem(dir)
}
