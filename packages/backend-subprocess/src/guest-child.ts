/**
 * The host's handle on one child process: spawns it with an empty environment and piped
 * stdio, sends `init`, reads its frames (capped, validated), keeps the tail of its stderr
 * for crash reports, and kills its whole process group. A frame while no run is attached
 * (in the pool, or between the runs of a session) breaks the protocol and kills the child,
 * except the one `usage` reply the host asked for.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import type { Readable, Writable } from 'node:stream'
import { FrameReader, encodeFrame } from './framing.js'
import { launchArgv, type LaunchPlan } from './launch-plan.js'
import { parseChildMessage, type ChildMessage, type InitMessage } from './messages.js'
import { leafPid, readStatusKb } from './proc-stats.js'
import { summarizeStderr } from './stderr-summary.js'

export interface ChildListener {
  message(message: ChildMessage): void
  /** The child broke the protocol; it has been killed. */
  violation(reason: string): void
  /** The child is gone (after its stdio closed, so `stderrTail` is complete). */
  exit(code: number | null, signal: NodeJS.Signals | null): void
}

const STARTUP_FRAME_CAP = 4 * 1024
const STDERR_TAIL_CHARS = 4 * 1024
const READY_TIMEOUT_MS = 15_000
/**
 * After 'exit', how long to wait for the pipes to close before reporting the exit anyway. The
 * last frames (logs written before an out-of-memory kill) arrive before the close; on a loaded
 * machine that can take longer than a few hundred ms.
 */
const CLOSE_GRACE_MS = 1_000

export class GuestChild {
  readonly memoryMb: number
  readonly ready: Promise<void>
  readonly closed: Promise<void>
  /** Host-visible pid of the Node process (below any `unshare --fork`), once ready. */
  nodePid: number | undefined
  /** Resident memory of the ready child, the watchdog's baseline (Linux). */
  idleRssBytes: number | undefined
  private readonly proc: ChildProcess
  private readonly reader: FrameReader
  private listener: ChildListener | undefined
  private stderr = ''
  private readyNow = false
  private exited = false
  private killed = false
  private usageQuery: { resolve: (heapBytes: number) => void; reject: (error: Error) => void; timer: NodeJS.Timeout } | undefined
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } = { code: null, signal: null }

  constructor(plan: LaunchPlan, memoryMb: number, init: InitMessage) {
    this.memoryMb = memoryMb
    const [command, ...args] = launchArgv(plan, memoryMb) as [string, ...string[]]
    this.proc = spawn(command, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {},
      cwd: path.dirname(plan.entryPath),
      // Own process group: one kill reaches every process of the chain, and a guest's
      // kill(0) cannot reach the host's group.
      detached: process.platform !== 'win32',
      windowsHide: true,
    })
    let resolveReady!: () => void
    let rejectReady!: (error: Error) => void
    this.ready = new Promise<void>((resolve, reject) => {
      resolveReady = resolve
      rejectReady = reject
    })
    this.ready.catch(() => {}) // Observed by whoever acquires the child; not a crash if nobody does.
    const readyTimer = setTimeout(() => {
      rejectReady(new Error(`the child did not start within ${READY_TIMEOUT_MS} ms`))
      this.kill()
    }, READY_TIMEOUT_MS)
    readyTimer.unref()

    this.reader = new FrameReader(STARTUP_FRAME_CAP, {
      frame: (frame) => {
        const message = parseChildMessage(frame)
        if (typeof message === 'string') return this.breach(message)
        if (message.kind === 'usage') {
          const query = this.endUsageQuery()
          return query === undefined ? this.breach('a usage message nobody asked for') : query.resolve(message.heapBytes)
        }
        if (this.listener !== undefined && this.readyNow) return this.listener.message(message)
        if (message.kind === 'ready' && !this.readyNow) {
          this.readyNow = true
          clearTimeout(readyTimer)
          this.measure()
          resolveReady()
          return
        }
        this.breach(`unexpected ${message.kind} message from an idle child`)
      },
      violation: (reason) => this.breach(reason),
    })

    const stdin = this.proc.stdin as Writable
    const stdout = this.proc.stdout as Readable
    const stderr = this.proc.stderr as Readable
    // EPIPE and the like when the child is gone: its exit is what gets reported (below).
    for (const stream of [stdin, stdout, stderr]) stream.on('error', () => {})
    stdout.on('data', (chunk: Buffer) => this.reader.push(chunk))
    stderr.setEncoding('utf8')
    stderr.on('data', (text: string) => {
      this.stderr = (this.stderr + text).slice(-STDERR_TAIL_CHARS)
    })

    this.closed = new Promise<void>((resolve) => {
      let graceTimer: NodeJS.Timeout | undefined
      const done = () => {
        if (this.exited) return
        this.exited = true
        clearTimeout(graceTimer)
        clearTimeout(readyTimer)
        this.reader.stop()
        rejectReady(new Error(`the child ended before it was ready${this.describeExit()}`))
        this.endUsageQuery()?.reject(new Error(`the child ended before it reported its memory${this.describeExit()}`))
        this.listener?.exit(this.exitInfo.code, this.exitInfo.signal)
        this.listener = undefined
        resolve()
      }
      this.proc.on('error', (error) => {
        this.stderr += `\n${error.message}`
        done()
      })
      this.proc.on('exit', (code, signal) => {
        this.exitInfo = { code, signal }
        graceTimer = setTimeout(done, CLOSE_GRACE_MS)
      })
      this.proc.on('close', (code, signal) => {
        this.exitInfo = { code, signal }
        done()
      })
    })
    this.send(['init', init])
  }

  /** Started, said `ready`, and still running. */
  get isReady(): boolean {
    return this.readyNow && !this.exited
  }

  /** Running and not yet told to die: a killed child is never used again. */
  get alive(): boolean {
    return !this.exited && !this.killed
  }

  get pid(): number | undefined {
    return this.proc.pid
  }

  /** Routes this child's messages, violations and exit to `listener` (one run). */
  attach(listener: ChildListener, frameCapBytes: number): void {
    this.listener = listener
    this.reader.setMaxBodyBytes(frameCapBytes)
  }

  /** Ends the run's routing; until the next `attach`, any frame but a solicited `usage` kills the child. */
  detach(): void {
    this.listener = undefined
    this.reader.setMaxBodyBytes(STARTUP_FRAME_CAP)
  }

  /**
   * Asks a session child between runs for its heap in use. Rejects when the child dies or
   * does not answer within `timeoutMs` (it is then killed: an idle child has nothing to do).
   */
  queryHeap(timeoutMs: number): Promise<number> {
    if (!this.alive) return Promise.reject(new Error('the child is gone'))
    if (this.usageQuery !== undefined) return Promise.reject(new Error('a usage query is already pending'))
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.endUsageQuery()?.reject(new Error(`the child did not report its memory within ${timeoutMs} ms and was killed`))
        this.kill()
      }, timeoutMs)
      this.usageQuery = { resolve, reject, timer }
      this.send(['usage'])
    })
  }

  send(message: readonly unknown[]): void {
    if (this.exited) return
    const stdin = this.proc.stdin as Writable
    if (!stdin.destroyed) stdin.write(encodeFrame(message))
  }

  stderrTail(): string {
    return this.stderr
  }

  /** Keep the host alive while this child works (runs), or not (idle in the pool). */
  setRef(on: boolean): void {
    for (const handle of [this.proc, this.proc.stdin, this.proc.stdout, this.proc.stderr]) {
      const h = handle as { ref?: () => void; unref?: () => void } | null
      if (on) h?.ref?.()
      else h?.unref?.()
    }
  }

  kill(): void {
    this.killed = true
    if (this.exited) return
    const pid = this.proc.pid
    if (pid !== undefined && process.platform !== 'win32') {
      try {
        process.kill(-pid, 'SIGKILL')
        return
      } catch {
        // The group is gone or was never created: fall back to the process itself.
      }
    }
    this.proc.kill('SIGKILL')
  }

  private endUsageQuery(): GuestChild['usageQuery'] {
    const query = this.usageQuery
    this.usageQuery = undefined
    if (query !== undefined) clearTimeout(query.timer)
    return query
  }

  private breach(reason: string): void {
    const listener = this.listener
    this.listener = undefined
    this.reader.stop()
    this.kill()
    listener?.violation(reason)
  }

  private measure(): void {
    if (process.platform !== 'linux' || this.proc.pid === undefined) return
    this.nodePid = leafPid(this.proc.pid)
    const rssKb = readStatusKb(this.nodePid, 'VmRSS')
    if (rssKb !== undefined) this.idleRssBytes = rssKb * 1024
  }

  private describeExit(): string {
    const { code, signal } = this.exitInfo
    const how = signal !== null ? ` (signal ${signal})` : code !== null ? ` (exit code ${code})` : ''
    const said = summarizeStderr(this.stderr)
    return said === '' ? how : `${how}: ${said}`
  }
}
