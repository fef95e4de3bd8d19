/**
 * `cordon daemon start | stop | status | serve`: a per-user background process that keeps a warm
 * sandbox for later `cordon run` commands (daemon-server.ts), started and ended by you.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { EXIT } from '../exit-codes.js'
import { writeStderr, writeStdout } from '../output.js'
import { ask } from './daemon-ask.js'
import { daemonPlace, makeDir } from './daemon-paths.js'
import type { DaemonMessage } from './daemon-protocol.js'
import { serveDaemon } from './daemon-server.js'

/** How long `start` waits for the daemon to answer: its first start may probe this machine and start an engine. */
const START_WAIT_MS = 30_000
const LOG_TAIL_CHARS = 2_000

export interface DaemonFlags {
  idle: number
  json?: boolean
}

export async function daemonCommand(action: string, flags: DaemonFlags): Promise<number> {
  const place = daemonPlace()
  if (place === undefined) {
    writeStderr('cordon daemon: not available on this platform (it needs Unix sockets and a user id)')
    return EXIT.BACKEND
  }
  if (action === 'serve') return serveDaemon({ idleSeconds: flags.idle, say: writeStderr })
  const status = await ask(place.socket, { type: 'status' })
  const running = status?.type === 'status' ? status : undefined
  if (action === 'status') {
    if (flags.json === true)
      writeStdout(JSON.stringify(running === undefined ? { running: false } : { running: true, ...withoutType(running) }))
    else if (running === undefined) writeStdout('cordon daemon: not running')
    else writeStdout(describe(running))
    return running === undefined ? EXIT.GUEST_ERROR : EXIT.OK
  }
  if (action === 'stop') {
    if (running === undefined) {
      writeStdout('cordon daemon: not running')
      return EXIT.OK
    }
    await ask(place.socket, { type: 'stop' })
    await waitFor(() => !fs.existsSync(place.socket), START_WAIT_MS)
    writeStdout(`cordon daemon: stopped (pid ${running.pid}, ${running.runs} runs served)`)
    return EXIT.OK
  }
  // start
  if (running !== undefined) {
    writeStdout(`${describe(running)} (already)`)
    return EXIT.OK
  }
  const problem = makeDir(place.dir)
  if (problem !== undefined) {
    writeStderr(`cordon daemon: cannot use ${place.dir}: ${problem}`)
    return EXIT.BACKEND
  }
  const log = fs.openSync(place.log, 'w', 0o600)
  const child = spawn(process.execPath, [process.argv[1]!, 'daemon', 'serve', '--idle', String(flags.idle)], {
    detached: true,
    stdio: ['ignore', log, log],
    env: { ...process.env, CORDON_NO_DAEMON: '1' },
  })
  fs.closeSync(log)
  let exited = false
  child.once('exit', () => (exited = true))
  child.unref()
  await waitFor(async () => exited || (await ask(place.socket, { type: 'status' }))?.type === 'status', START_WAIT_MS)
  // Ours, or one started meanwhile by another `start` (ours then saw it and left).
  const started = await ask(place.socket, { type: 'status' })
  if (started?.type !== 'status') {
    if (!exited) child.kill('SIGKILL')
    const said = fs.readFileSync(place.log, 'utf8').slice(-LOG_TAIL_CHARS).trim()
    writeStderr(`cordon daemon: it did not start${said === '' ? '' : `:\n${said}`}`)
    return EXIT.BACKEND
  }
  writeStdout(describe(started))
  return EXIT.OK
}

function describe(status: Extract<DaemonMessage, { type: 'status' }>): string {
  return (
    `cordon daemon: running (pid ${status.pid}, ${status.backend}, since ${status.startedAt}, ${status.runs} runs served, ` +
    `ends after ${status.idleSeconds} s idle) at ${status.socket}`
  )
}

function withoutType({ type: _type, ...rest }: Extract<DaemonMessage, { type: 'status' }>) {
  return rest
}

async function waitFor(condition: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (await condition()) return true
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return condition()
}
