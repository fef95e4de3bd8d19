import { spawn } from 'node:child_process'
import { constants } from 'node:os'
import { isExitCodeMessage } from './process-end.js'

/**
 * isolated-vm needs Node started with --no-node-snapshot, and a bin's `#!/usr/bin/env node`
 * line cannot portably pass a flag. When a command may use the ivm backend (`--backend ivm`,
 * `--prefer ivm`, CORDON_BACKEND=ivm, `cordon doctor`), the CLI starts itself once more with
 * the flag and passes its exit code on. Other commands never pay for the second Node start.
 * CORDON_CLI_NO_REEXEC=1 turns this off (and is how the second process knows not to loop).
 */
export const NO_REEXEC_ENV = 'CORDON_CLI_NO_REEXEC'

export function hasNoNodeSnapshot(): boolean {
  // NODE_OPTIONS does not show up in execArgv: check both.
  const fromOptions = (process.env.NODE_OPTIONS ?? '').split(/\s+/)
  return process.execArgv.includes('--no-node-snapshot') || fromOptions.includes('--no-node-snapshot')
}

/** True when this is Node (Bun and Deno cannot load isolated-vm at all) without the flag. */
export function shouldRestartForIvm(): boolean {
  const isNode = process.versions.bun === undefined && !('Deno' in globalThis)
  return isNode && !hasNoNodeSnapshot() && !process.env[NO_REEXEC_ENV]
}

/** Runs this very command in a Node started with --no-node-snapshot; resolves its exit code. */
export function restartWithNoNodeSnapshot(): Promise<number> {
  const args = ['--no-node-snapshot', ...process.execArgv, process.argv[1]!, ...process.argv.slice(2)]
  // The IPC channel carries the exit code when the child cannot exit with it (process-end.ts).
  const child = spawn(process.execPath, args, {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [NO_REEXEC_ENV]: '1' },
  })
  let reported: number | undefined
  child.on('message', (message) => {
    if (isExitCodeMessage(message)) reported = message.cordonExitCode
  })
  // Ctrl-C on a terminal reaches both processes; `kill <pid>` reaches only this one. Forwarding
  // is harmless in the first case: the child treats a repeated SIGINT like the first.
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']
  const forward = (signal: NodeJS.Signals): void => void child.kill(signal)
  for (const signal of signals) process.on(signal, forward)
  return new Promise((resolve) => {
    child.on('error', (error) => {
      process.stderr.write(`cordon: could not restart Node with --no-node-snapshot: ${error.message}\n`)
      resolve(4)
    })
    child.on('exit', (code, signal) => {
      for (const s of signals) process.off(s, forward)
      resolve(reported ?? code ?? 128 + (signal ? constants.signals[signal] : 0))
    })
  })
}
