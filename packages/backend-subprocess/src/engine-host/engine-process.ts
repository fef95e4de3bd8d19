/**
 * Starting, killing and holding an engine child's process: the same way whether the pool starts
 * it (engine-child-link.ts) or the early start does (early-child.ts).
 */
import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process'
import type { Readable, Writable } from 'node:stream'

export type EngineProcess = ChildProcessByStdio<Writable, Readable, Readable>

/** Spawns `argv` with an empty environment, in its own process group, talking over pipes. */
export function spawnEngineProcess(argv: readonly string[], cwd: string): EngineProcess {
  const [command, ...args] = argv as [string, ...string[]]
  return spawn(command, args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {},
    cwd,
    // Own process group: one kill reaches every process of the wrapper chain.
    detached: process.platform !== 'win32',
    windowsHide: true,
  })
}

/** SIGKILLs the child's process group (every wrapper and the child), else the process itself. */
export function killEngineProcess(proc: ChildProcess): void {
  const pid = proc.pid
  if (pid !== undefined && process.platform !== 'win32') {
    try {
      process.kill(-pid, 'SIGKILL')
      return
    } catch {
      // The group is gone or was never created: the process itself, then.
    }
  }
  proc.kill('SIGKILL')
}

/** Whether the child (its process and pipes) keeps the host's event loop alive. */
export function holdEngineProcess(proc: ChildProcess, held: boolean): void {
  for (const handle of [proc, proc.stdin, proc.stdout, proc.stderr]) {
    const h = handle as { ref?: () => void; unref?: () => void }
    if (held) h.ref?.()
    else h.unref?.()
  }
}
