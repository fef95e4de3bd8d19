import fs from 'node:fs'
import path from 'node:path'
import { createSandbox, type RunError, type RunResult, type Sandbox } from '@cordon/core'
import { createBackend, type SubprocessBackend, type TestInternals } from '../src/subprocess-backend.js'
import type { SubprocessBackendOptions } from '../src/options.js'

/** A backend (with this package's test switches) and a sandbox over it. */
export async function open(
  options: SubprocessBackendOptions = {},
  internals: Partial<TestInternals> = {},
): Promise<{ backend: SubprocessBackend; sandbox: Sandbox }> {
  const backend = createBackend({ engine: 'node-vm', ...options }, { exposeProcess: false, ...internals })
  await backend.warm()
  return { backend, sandbox: createSandbox(backend) }
}

export function errorOf(result: RunResult): RunError {
  if (result.ok) throw new Error(`expected a failed run, got the value ${JSON.stringify(result.value)}`)
  return result.error
}

export function valueOf(result: RunResult): unknown {
  if (!result.ok) throw new Error(`expected a value, got ${result.error.code}: ${result.error.message}`)
  return result.value
}

/** Pids of every process below `root` (Linux /proc). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>()
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = readStat(Number(entry))
    if (stat === undefined || stat.state === 'Z') continue
    const list = children.get(stat.ppid) ?? []
    list.push(Number(entry))
    children.set(stat.ppid, list)
  }
  const out: number[] = []
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      out.push(child)
      walk(child)
    }
  }
  walk(root)
  return out
}

/** Whether `pid` is still a running (non-zombie) process. */
export function running(pid: number): boolean {
  const stat = readStat(pid)
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X'
}

function readStat(pid: number): { ppid: number; state: string } | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1')
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    return { state: fields[0] ?? '?', ppid: Number(fields[1]) }
  } catch {
    return undefined
  }
}

export async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    if (condition()) return true
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return condition()
}

/**
 * Guest code (for a backend opened with `exposeProcess`) that writes frames on the child's
 * stdout as an escaped guest could: `send(message)` a framed message, `raw(bytes)` anything,
 * `later(fn, ms)` on the child's own timers.
 */
export const FORGE = `
const B = escapedProcess.getBuiltinModule('buffer').Buffer
const frame = (message) => {
  const json = B.from(JSON.stringify(message))
  const head = B.alloc(8)
  head.writeUInt32BE(json.length + 4, 0)
  head.writeUInt32BE(json.length, 4)
  return B.concat([head, json])
}
const send = (message) => escapedProcess.stdout.write(frame(message))
const raw = (bytes) => escapedProcess.stdout.write(B.from(bytes))
const later = (fn, ms) => escapedProcess.getBuiltinModule('timers').setTimeout(fn, ms)
`

/** The Node processes of engine children below `root` (not their launch wrappers). */
export function engineChildren(root = process.pid): number[] {
  return nodeChildren(root, 'engine-child.js')
}

/** The Node processes below `root` (not their launch wrappers) running the entry `entry`. */
export function nodeChildren(root: number, entry: string): number[] {
  return descendants(root).filter((pid) => {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
      return path.basename(argv[0] ?? '') === path.basename(process.execPath) && argv.some((arg) => path.basename(arg) === entry)
    } catch {
      return false
    }
  })
}
