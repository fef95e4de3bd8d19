/**
 * `cordon daemon serve`: one warm sandbox (select's choice, as `cordon run` makes it) serving
 * `cordon run` for this user's later commands over a Unix socket, so that each of them pays only
 * its own Node start. Each run is a run of that sandbox — a fresh isolate or engine instance, as
 * for any two runs of one sandbox — with nothing from the host but its program and limits: no
 * host tools, globals or fetch (the client runs those in its own process). It ends after
 * `idleSeconds` without a client, on `cordon daemon stop`, SIGTERM or SIGINT.
 */
import fs from 'node:fs'
import net from 'node:net'
import type { Sandbox } from '@cordon/core'
import { EXIT } from '../exit-codes.js'
import type { OutputLine } from '../format-result.js'
import type { Program } from '../read-program.js'
import { runInSandbox, type RunFlags } from '../run-in-sandbox.js'
import { selectOptionsFrom } from '../run-options.js'
import { daemonPlace, makeDir } from './daemon-paths.js'
import { ask } from './daemon-ask.js'
import { withSocketLock } from './daemon-lock.js'
import { cordonEnv, encode, messageReader, PROTOCOL, type DaemonMessage, type DaemonRunFlags } from './daemon-protocol.js'

/** How often a daemon checks that its socket's name is still its own. */
const OWNERSHIP_CHECK_MS = 1_000

export interface ServeOptions {
  idleSeconds: number
  /** Where to say what happened (stderr). */
  say(text: string): void
}

/** Serves until idle or stopped; resolves the exit code. */
export async function serveDaemon(options: ServeOptions): Promise<number> {
  const place = daemonPlace()
  if (place === undefined) {
    options.say('cordon daemon: not available on this platform (it needs Unix sockets and a user id)')
    return EXIT.BACKEND
  }
  const problem = makeDir(place.dir)
  if (problem !== undefined) {
    options.say(`cordon daemon: cannot use ${place.dir}: ${problem}`)
    return EXIT.BACKEND
  }
  if ((await ask(place.socket, { type: 'status' })) !== undefined) {
    options.say(`cordon daemon: one already serves this build at ${place.socket}`)
    return EXIT.OK
  }

  const { createSandbox } = await import('@cordon/select')
  const sandbox = await createSandbox(selectOptionsFrom({ backend: 'auto' }))
  // The first client should find the engine up and its first run behind it.
  await sandbox.run('0')
  const env = cordonEnv()
  const startedAt = new Date().toISOString()
  let runs = 0
  let running = 0
  let idleTimer: ReturnType<typeof setTimeout> | undefined
  let stopping: Promise<void> | undefined
  let stopped!: () => void
  const done = new Promise<void>((resolve) => (stopped = resolve))

  // Idle means no run: a status request does not keep it up.
  const server = net.createServer((socket) =>
    serveClient(socket, {
      sandbox,
      env,
      runStarted: () => {
        runs++
        running++
        clearTimeout(idleTimer)
      },
      runEnded: () => {
        running--
        if (running === 0 && stopping === undefined) armIdle()
      },
      status: () => status(),
      stop: () => void stop(),
    }),
  )
  const status = () => ({
    pid: process.pid,
    startedAt,
    runs,
    backend: sandbox.backend.name,
    idleSeconds: options.idleSeconds,
    socket: place.socket,
  })
  const armIdle = () => {
    idleTimer = setTimeout(() => void stop(), options.idleSeconds * 1000)
  }
  /** The socket file this daemon listens on once it does (see fileOf), and the look that checks it stays so. */
  const own: { socket?: string | undefined; check?: ReturnType<typeof setInterval> } = {}
  const stop = () =>
    (stopping ??= (async () => {
      clearTimeout(idleTimer)
      clearInterval(own.check)
      // Closing a Unix socket's server unlinks its name: only when the name is still this
      // daemon's. One that lost it leaves the server open; its process ends without closing it.
      if (own.socket !== undefined && fileOf(place.socket) === own.socket) server.close()
      await sandbox.dispose()
      stopped()
    })())

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(place.socket, () => {
        server.off('error', reject)
        resolve()
      })
    })
  // The name is free, held by a daemon started meanwhile (it answers), or left by one that died.
  const taken = await withSocketLock(place.socket, async () => {
    if ((await ask(place.socket, { type: 'status' })) !== undefined) return false
    fs.rmSync(place.socket, { force: true })
    await listen()
    return true
  }).catch(async (error: unknown) => {
    await sandbox.dispose()
    throw error
  })
  if (!taken) {
    await sandbox.dispose()
    options.say(`cordon daemon: one already serves this build at ${place.socket}`)
    return EXIT.OK
  }
  // The folder already keeps others out; the socket says so too.
  fs.chmodSync(place.socket, 0o600)
  own.socket = fileOf(place.socket)
  // Should the name come to another file all the same (removed by hand, a daemon of a starter
  // that outwaited the lock), this one can no longer be reached: it ends.
  own.check = setInterval(() => {
    if (fileOf(place.socket) !== own.socket) void stop()
  }, OWNERSHIP_CHECK_MS)
  own.check.unref()
  armIdle()
  const onSignal = () => void stop()
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  options.say(
    `cordon daemon: serving ${place.socket} (pid ${process.pid}, ${sandbox.backend.name}, ends after ${options.idleSeconds} s idle)`,
  )
  await done
  process.off('SIGTERM', onSignal)
  process.off('SIGINT', onSignal)
  return EXIT.OK
}

interface ClientContext {
  sandbox: Sandbox
  env: Record<string, string>
  runStarted(): void
  runEnded(): void
  status(): object
  stop(): void
}

/** One connection: hello, then one run (or a status or stop request). */
function serveClient(socket: net.Socket, context: ClientContext): void {
  let greeted = false
  let running = false
  let interruptedBy: NodeJS.Signals | undefined
  const abort = new AbortController()
  const send = (message: DaemonMessage) => {
    if (!socket.destroyed) socket.write(encode(message))
  }
  socket.setEncoding('utf8')
  socket.on('error', () => {})
  // A client that goes away mid-run takes its run with it.
  socket.once('close', () => abort.abort(new Error('the client went away')))
  const refuse = (reason: string) => {
    send({ type: 'refused', reason })
    socket.end()
  }
  socket.on(
    'data',
    messageReader(
      (message) => {
        const m = message as { type?: unknown }
        if (m.type === 'status') {
          send({ type: 'status', ...(context.status() as Omit<Extract<DaemonMessage, { type: 'status' }>, 'type'>) })
          return void socket.end()
        }
        if (m.type === 'stop') {
          send({ type: 'stopping' })
          socket.end()
          return context.stop()
        }
        if (m.type === 'hello') {
          const hello = message as { protocol?: unknown; env?: unknown }
          if (hello.protocol !== PROTOCOL) return refuse(`protocol ${String(hello.protocol)} is not ${PROTOCOL}`)
          if (JSON.stringify(hello.env) !== JSON.stringify(context.env)) return refuse('its CORDON_* variables differ from the daemon’s')
          greeted = true
          return send({ type: 'ready' })
        }
        if (m.type === 'abort' && running) {
          const signal = (message as { signal?: unknown }).signal
          interruptedBy ??= signal === 'SIGTERM' ? 'SIGTERM' : 'SIGINT'
          return abort.abort(new Error(`interrupted by ${interruptedBy}`))
        }
        if (m.type === 'run' && greeted && !running) {
          const run = checkRun(message)
          if (run === undefined) return refuse('a malformed run request')
          running = true
          context.runStarted()
          const out = {
            write: (line: OutputLine) => send({ type: 'line', ...line }),
            colorStdout: run.color.stdout,
            colorStderr: run.color.stderr,
          }
          const host = { signal: abort.signal, interruptedBy: () => interruptedBy }
          // runInSandbox reports its own failures; a throw past that is cordon's bug, exit 4.
          const ran = runInSandbox(context.sandbox, run.program, run.flags, host, out).catch(() => EXIT.BACKEND)
          void ran.then((code) => {
            context.runEnded()
            send({ type: 'exit', code })
            socket.end()
          })
        }
      },
      () => socket.destroy(),
    ),
  )
}

/** The run request's parts, checked (the client is this user's, but maybe another version's or broken). */
function checkRun(message: unknown): { program: Program; flags: RunFlags; color: { stdout: boolean; stderr: boolean } } | undefined {
  const { program, flags, color } = message as {
    program?: Partial<Program>
    flags?: DaemonRunFlags
    color?: { stdout?: unknown; stderr?: unknown }
  }
  if (typeof program !== 'object' || program === null || typeof flags !== 'object' || flags === null) return undefined
  const { code, source, name, lineShift } = program
  if (typeof code !== 'string' || typeof source !== 'string' || typeof name !== 'string' || !Number.isInteger(lineShift)) return undefined
  const number = (value: unknown) => value === undefined || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0)
  const flag = (value: unknown) => value === undefined || typeof value === 'boolean'
  if (!number(flags.timeout) || !number(flags.memory) || !number(flags.maxOutput) || !flag(flags.json) || !flag(flags.stats))
    return undefined
  return {
    program: { code, source, name, lineShift: lineShift! },
    flags: {
      backend: 'auto',
      json: flags.json,
      timeout: flags.timeout,
      memory: flags.memory,
      maxOutput: flags.maxOutput,
      stats: flags.stats,
    },
    color: { stdout: color?.stdout === true, stderr: color?.stderr === true },
  }
}

/** Which file `file` names: its device, inode and change time (an inode is soon reused). */
function fileOf(file: string): string | undefined {
  try {
    const stat = fs.statSync(file)
    return `${stat.dev}:${stat.ino}:${stat.ctimeMs}`
  } catch {
    return undefined
  }
}
