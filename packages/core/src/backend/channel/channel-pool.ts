import { SandboxError } from '../../errors.js'
import type { RunError } from '../../result.js'
import type { BackendSession, ExecuteOutcome, ExecuteRequest } from '../v1/sandbox-backend.js'
import { ChannelClient, type NearTransport } from './channel-client.js'

/** What a backend gives the pool for each far side it starts (a worker thread, a child process). */
export interface FarSideLink {
  transport: NearTransport
  /** Ends the far side at once (terminate the worker, kill the child). `lost` must follow. */
  kill(): void
  /** Whether the far side keeps the host process alive: only while it has work. */
  hold(held: boolean): void
}

/** What the far side's link reports to the pool. */
export interface FarSideEvents {
  receive(batch: unknown): void
  /** The far side is gone (it exited, crashed, or was killed); `error` is what its runs report. */
  lost(error: RunError): void
}

export interface ChannelPoolOptions {
  /** Names a far side in messages, e.g. `QuickJS worker`. */
  label: string
  /** Starts one far side. Throws a SandboxError where none can be started here. */
  start(events: FarSideEvents): FarSideLink
  /** Most far sides at once. */
  maxSides: number
  /** Far sides kept when idle (so the next run does not wait for one to start). */
  minSides: number
  /** An idle far side above `minSides` is ended after this long. */
  idleMs: number
  maxChars: number
  stopGraceMs: number
  killGraceMs: number
  onWarn?(message: string): void
}

interface FarSide {
  client: ChannelClient
  link: FarSideLink
  idleTimer: ReturnType<typeof setTimeout> | undefined
  held: boolean
}

/**
 * Far sides for one backend: runs go to an idle one first, then to a new one while there is room
 * under `maxSides`, and only then share the least loaded one; so a run never waits behind a busy
 * far side while another is idle. A session stays on the far side it opened on. A far side that is
 * lost takes only its own runs and sessions with it, and the next run starts a new one.
 */
export class ChannelPool {
  private readonly sides = new Set<FarSide>()
  private closed = false

  constructor(private readonly options: ChannelPoolOptions) {}

  execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    let side: FarSide
    try {
      side = this.pick()
    } catch (error) {
      const failure = error as SandboxError
      return Promise.resolve({ ok: false, error: { code: failure.code, message: failure.message } })
    }
    return side.client.execute(request)
  }

  openSession(memoryMb: number): Promise<BackendSession> {
    return this.pick().client.openSession(memoryMb)
  }

  /** Ends every far side; their runs end with `error`. */
  dispose(error: RunError): void {
    this.closed = true
    for (const side of [...this.sides]) this.end(side, error)
  }

  private pick(): FarSide {
    if (this.closed) throw new SandboxError('DISPOSED', 'the backend was disposed')
    let best: FarSide | undefined
    for (const side of this.sides) {
      if (!side.client.hasRoom) continue
      if (best === undefined || side.client.runCount < best.client.runCount) best = side
    }
    if (best !== undefined && best.client.runCount === 0) return best
    if (this.sides.size < this.options.maxSides) return this.startSide()
    if (best === undefined) throw new SandboxError('BACKEND_CRASHED', this.options.label + 's are all full')
    return best
  }

  private startSide(): FarSide {
    // The link reports only later (never from inside start), when `side` exists.
    const events: FarSideEvents = {
      receive: (batch) => side.client.receive(batch),
      lost: (error) => this.lose(side, error),
    }
    const link = this.options.start(events)
    const client: ChannelClient = new ChannelClient(link.transport, {
      label: this.options.label,
      maxChars: this.options.maxChars,
      stopGraceMs: this.options.stopGraceMs,
      killGraceMs: this.options.killGraceMs,
      kill: (reason) => this.end(side, reason),
      onWarn: (message) => this.options.onWarn?.(message),
      onLoad: () => this.loadChanged(side),
    })
    const side: FarSide = { client, link, idleTimer: undefined, held: false }
    this.sides.add(side)
    return side
  }

  /** Holds a busy far side, lets an idle one go, and ends extra idle ones after a while. */
  private loadChanged(side: FarSide): void {
    const busy = side.client.busy
    if (busy !== side.held) {
      side.held = busy
      side.link.hold(busy)
    }
    if (side.idleTimer !== undefined) clearTimeout(side.idleTimer)
    side.idleTimer = undefined
    if (busy || side.client.sessionCount > 0 || side.client.lost) return
    side.idleTimer = setTimeout(() => {
      side.idleTimer = undefined
      if (side.client.busy || side.client.sessionCount > 0) return
      if (this.sides.size > this.options.minSides) this.end(side, { code: 'BACKEND_CRASHED', message: 'idle' })
    }, this.options.idleMs)
    // The timer alone never keeps the host process alive.
    ;(side.idleTimer as { unref?: () => void }).unref?.()
  }

  /** Ends a far side and everything on it. */
  private end(side: FarSide, error: RunError): void {
    this.lose(side, error)
    side.link.kill()
  }

  private lose(side: FarSide, error: RunError): void {
    if (!this.sides.delete(side)) return
    if (side.idleTimer !== undefined) clearTimeout(side.idleTimer)
    side.client.fail(error)
  }
}
