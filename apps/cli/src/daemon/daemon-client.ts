/**
 * `cordon run …` served by a running daemon of this build (daemon-server.ts), before commander
 * or anything else of the CLI loads. Only for the flags the daemon serves and an environment
 * whose CORDON_* variables match the daemon's; anything else, or no daemon, runs in this
 * process as always (the caller then goes on). CORDON_NO_DAEMON=1 turns it off.
 */
import fs from 'node:fs'
import net from 'node:net'
import { wantsColor } from '../colors.js'
import { EXIT } from '../exit-codes.js'
import { ignoreClosedPipes, writeLine } from '../output.js'
import { readProgram, type Program } from '../read-program.js'
import { reportFailure } from '../report-failure.js'
import { daemonPlace, dirProblem } from './daemon-paths.js'
import { cordonEnv, encode, messageReader, PROTOCOL, type DaemonMessage, type DaemonRunFlags } from './daemon-protocol.js'

/** How long an interrupted run may take to wind down before the process exits anyway (as interrupt.ts). */
const GRACE_MS = 3_000

interface DaemonRun {
  file: string | undefined
  eval: string | undefined
  flags: DaemonRunFlags
}

/** The exit code of the run the daemon served, or undefined: run it here. */
export async function runThroughDaemon(args: readonly string[]): Promise<number | undefined> {
  if ((process.env.CORDON_NO_DAEMON ?? '') !== '') return undefined
  const run = servedRun(args)
  if (run === undefined) return undefined
  const place = daemonPlace()
  // No socket: no daemon (the usual case, and the cheapest look). A folder others could write: not ours to trust.
  if (place === undefined || !fs.existsSync(place.socket) || dirProblem(place.dir) !== undefined) return undefined
  const connection = await connect(place.socket)
  if (connection === undefined) return undefined
  return serve(connection, run)
}

/** The `run` arguments when every one of them is a flag the daemon serves, written plainly; else undefined. */
export function servedRun(args: readonly string[]): DaemonRun | undefined {
  if (args[0] !== 'run') return undefined
  const run: DaemonRun = { file: undefined, eval: undefined, flags: {} }
  const number = (value: string | undefined) => (value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : undefined)
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!
    const [name, inline] =
      arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined]
    // A value that looks like a flag is left to commander, which may read it otherwise.
    const value = () => {
      const next = inline ?? args[++i]
      return next === undefined || next.startsWith('-') ? undefined : next
    }
    if (name === '--json' && inline === undefined) run.flags.json = true
    else if (name === '--stats' && inline === undefined) run.flags.stats = true
    else if (name === '-e' || name === '--eval') {
      if (run.eval !== undefined) return undefined
      run.eval = value()
      if (run.eval === undefined) return undefined
    } else if (name === '-t' || name === '--timeout') {
      if ((run.flags.timeout = number(value())) === undefined) return undefined
    } else if (name === '-m' || name === '--memory') {
      if ((run.flags.memory = number(value())) === undefined) return undefined
    } else if (name === '--max-output') {
      if ((run.flags.maxOutput = number(value())) === undefined) return undefined
    } else if ((arg === '-' || !arg.startsWith('-')) && run.file === undefined) run.file = arg
    else return undefined
  }
  return run
}

function connect(socket: string): Promise<net.Socket | undefined> {
  return new Promise((resolve) => {
    const connection = net.createConnection(socket)
    connection.once('connect', () => resolve(connection))
    connection.once('error', () => resolve(undefined))
  })
}

/** Hello, then the program and what comes back; undefined when the daemon refused before the program was read. */
function serve(connection: net.Socket, run: DaemonRun): Promise<number | undefined> {
  return new Promise((resolve) => {
    let phase: 'hello' | 'reading' | 'running' | 'done' = 'hello'
    let interruptedBy: NodeJS.Signals | undefined
    const finish = (code: number | undefined) => {
      if (phase === 'done') return
      phase = 'done'
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      connection.end()
      resolve(code)
    }
    const onSignal = (signal: NodeJS.Signals) => {
      if (interruptedBy !== undefined) return
      interruptedBy = signal
      connection.write(encode({ type: 'abort', signal: signal === 'SIGTERM' ? 'SIGTERM' : 'SIGINT' }))
      setTimeout(() => process.exit(signal === 'SIGTERM' ? EXIT.SIGTERM : EXIT.SIGINT), GRACE_MS).unref()
    }
    const start = async () => {
      phase = 'reading'
      let program: Program
      try {
        program = await readProgram(run.file, run.eval)
      } catch (error) {
        return finish(reportFailure(error, run.flags.json === true))
      }
      // The daemon went away while the program was read (finish said so).
      if (phase !== 'reading') return
      phase = 'running'
      ignoreClosedPipes()
      process.on('SIGINT', onSignal)
      process.on('SIGTERM', onSignal)
      const color = { stdout: wantsColor(process.stdout), stderr: wantsColor(process.stderr) }
      connection.write(encode({ type: 'run', program, flags: run.flags, color }))
    }
    connection.setEncoding('utf8')
    connection.on(
      'data',
      messageReader(
        (message) => {
          const m = message as DaemonMessage
          if (phase === 'hello') {
            if (m.type === 'ready') void start()
            else finish(undefined)
          } else if (m.type === 'line') writeLine(m)
          else if (m.type === 'exit') finish(m.code)
        },
        () => connection.destroy(),
      ),
    )
    connection.on('error', () => {})
    connection.once('close', () => {
      // Gone before it said ready: run here. Gone after (stdin may be read already): say so.
      if (phase === 'hello') return finish(undefined)
      if (phase !== 'done') {
        process.stderr.write('cordon: BACKEND_CRASHED: the cordon daemon went away during the run\n')
        finish(EXIT.BACKEND)
      }
    })
    connection.write(encode({ type: 'hello', protocol: PROTOCOL, env: cordonEnv() }))
  })
}
