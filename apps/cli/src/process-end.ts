/**
 * How the CLI's process ends once its command is done.
 *
 * Normally with `process.exit()`. But when isolated-vm has lost an isolate to an out-of-memory it
 * could not contain, it parks that isolate's thread for good, and its thread pool joins every
 * thread at exit: `exit()` never returns, whoever calls it. Then only a signal ends the process.
 * The exit code goes first to the parent that restarted the CLI with --no-node-snapshot (over
 * the IPC channel it opened), which passes it on; without one, stderr says what happened.
 */
let isolateLost = false

/** isolated-vm's `onCatastrophicError`: from now on the process cannot exit by itself. */
export function noteLostIsolate(): void {
  isolateLost = true
}

/** A message the restarted CLI sends its parent: the exit code it could not exit with. */
export interface ExitCodeMessage {
  cordonExitCode: number
}

export function isExitCodeMessage(message: unknown): message is ExitCodeMessage {
  return typeof (message as ExitCodeMessage | null)?.cordonExitCode === 'number'
}

export function endProcess(): void {
  const code = typeof process.exitCode === 'number' ? process.exitCode : 0
  if (!isolateLost) process.exit()
  const kill = () => process.kill(process.pid, 'SIGKILL')
  if (process.send !== undefined && process.connected) {
    process.send({ cordonExitCode: code } satisfies ExitCodeMessage, undefined, {}, kill)
    return
  }
  process.stderr.write(
    `cordon: isolated-vm lost an isolate to an out-of-memory it could not contain; ending with SIGKILL (exit code would be ${code})\n`,
  )
  kill()
}
