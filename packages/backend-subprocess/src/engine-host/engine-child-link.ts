/**
 * One engine child as the channel pool sees it (a FarSideLink): spawned inside the probed
 * wrappers with an empty environment and its own process group, fed the channel's batches as
 * frames on stdin, read (capped) on stdout, its stderr's tail kept for the report of its death.
 */
import path from 'node:path'
import type { RunError } from '@cordon/core'
import type { FarSideEvents, FarSideLink } from '@cordon/core/backend'
import { BATCH_FRAME, FATAL_FRAME, SYNC_REPLY_FRAME, type EngineInit } from '../engine-child/engine-init.js'
import { ranOutOfMemory } from '../exit-outcome.js'
import { FrameReader, encodeFrame } from '../framing.js'
import { engineLaunchArgv, type EngineChildLaunch, type LaunchPlan } from '../launch-plan.js'
import { summarizeStderr } from '../stderr-summary.js'
import { adoptEarlyChild, engineChildKey } from './early-child.js'
import { holdEngineProcess, killEngineProcess, spawnEngineProcess } from './engine-process.js'

const STDERR_TAIL_CHARS = 4 * 1024
/** After 'exit', how long to wait for the pipes to close before reporting the exit anyway. */
const CLOSE_GRACE_MS = 200

export interface EngineChildStart {
  plan: LaunchPlan
  launch: EngineChildLaunch
  init: EngineInit
  /** Largest frame the host reads from the child. */
  maxFrameBytes: number
  /** The child said its engine cannot load here: no child will do better. */
  onFatal(reason: string): void
}

export function startEngineChild(start: EngineChildStart, events: FarSideEvents): FarSideLink {
  const argv = engineLaunchArgv(start.plan, start.launch)
  const cwd = path.dirname(start.launch.entryPath)
  // The child the early start made for exactly this launch, if it waits (early-child.ts).
  const early = adoptEarlyChild(engineChildKey(argv, cwd, start.init))
  const proc = early?.proc ?? spawnEngineProcess(argv, cwd)
  const stdin = proc.stdin
  const stdout = proc.stdout
  const stderr = proc.stderr
  let stderrTail = ''
  let gone = false
  let fatal: string | undefined
  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } = { code: null, signal: null }

  const kill = () => {
    if (!gone) killEngineProcess(proc)
  }

  const reader = new FrameReader(start.maxFrameBytes, {
    frame: ([kind, body]) => {
      if (kind === BATCH_FRAME) return events.receive(body)
      if (kind === FATAL_FRAME && typeof body === 'string' && fatal === undefined) {
        fatal = body.slice(0, 2_000)
        start.onFatal(fatal)
        return kill()
      }
      reader.stop()
      kill()
    },
    // A malformed or oversized frame: the child is not trusted any more.
    violation: () => kill(),
  })

  // EPIPE and the like when the child is gone: its exit is what gets reported.
  for (const stream of [stdin, stdout, stderr]) stream.on('error', () => {})
  stdout.on('data', (chunk: Buffer) => reader.push(chunk))
  stderr.setEncoding('utf8')
  stderr.on('data', (text: string) => {
    stderrTail = (stderrTail + text).slice(-STDERR_TAIL_CHARS)
  })

  let graceTimer: ReturnType<typeof setTimeout> | undefined
  const done = () => {
    if (gone) return
    gone = true
    clearTimeout(graceTimer)
    reader.stop()
    events.lost(lostError(exitInfo, stderrTail, fatal))
  }
  proc.on('error', (error) => {
    stderrTail += `\n${error.message}`
    done()
  })
  proc.on('exit', (code, signal) => {
    exitInfo = { code, signal }
    graceTimer = setTimeout(done, CLOSE_GRACE_MS)
  })
  proc.on('close', (code, signal) => {
    exitInfo = { code, signal }
    done()
  })

  const send = (message: readonly unknown[]) => {
    if (!gone && !stdin.destroyed) stdin.write(encodeFrame(message))
  }
  if (early === undefined) send(['init', start.init])
  else {
    // What happened while it waited is reported as it would have been, later than this call.
    process.nextTick(() => {
      if (early.spawnError !== undefined) {
        stderrTail += `\n${early.spawnError.message}`
        return done()
      }
      if (early.closed !== undefined) {
        exitInfo = early.closed
        return done()
      }
      if (proc.exitCode !== null || proc.signalCode !== null) {
        exitInfo = { code: proc.exitCode, signal: proc.signalCode }
        graceTimer ??= setTimeout(done, CLOSE_GRACE_MS)
      }
    })
  }

  return {
    transport: {
      send: (batch) => send([BATCH_FRAME, batch]),
      replySync: (reply) => send([SYNC_REPLY_FRAME, reply]),
    },
    kill,
    hold: (held) => holdEngineProcess(proc, held),
  }
}

/** What the runs of a child that died report. */
function lostError(exit: { code: number | null; signal: NodeJS.Signals | null }, stderrTail: string, fatal: string | undefined): RunError {
  if (fatal !== undefined) return { code: 'BACKEND_UNAVAILABLE', message: fatal }
  if (ranOutOfMemory(stderrTail)) return { code: 'MEMORY_LIMIT', message: 'the engine child ran out of memory' }
  const how = exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${exit.code ?? 'unknown'}`
  const said = summarizeStderr(stderrTail)
  return { code: 'BACKEND_CRASHED', message: `the engine child process ${how}${said === '' ? '' : `: ${said}`}` }
}
