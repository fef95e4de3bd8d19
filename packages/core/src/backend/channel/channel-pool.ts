import { SandboxError } from '../../errors.js'
import type { RunError } from '../../result.js'
import { stopError, watchStop } from '../run-stop.js'
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
  /**
   * What one far side may hold at once: runs in flight, and the sum of their (and its open
   * sessions') `memoryMb`. A run that fits nowhere, with `maxSides` started, waits for room
   * until its deadline or abort. A run larger than `memoryMb` alone gets a far side to itself.
   * Without it, runs share the least loaded far side (up to its run slots). Either way, a run
   * that finds no far side with room (every one full, or waiting for a stopped run's far side
   * to report the stop) waits for room until its deadline or abort; it is never failed for it.
   */
  capacity?: { runs: number; memoryMb: number }
  /** A far side takes no new work after this many runs, and is ended once its work is done. */
  retireAfterRuns?: number
  /** Whether an outcome means its far side should take no new work (e.g. its engine ran out of memory). */
  retireAfter?(outcome: ExecuteOutcome): boolean
  /**
   * Keep runs of different partitions (`ExecuteRequest.partition`) on different far sides: for far
   * sides that are processes, where an escape from one engine instance reaches the others. At
   * `maxSides`, an idle far side of another partition is ended to make room.
   */
  partitioned?: boolean
}

/**
 * Runs back to back: a run that starts while another is in flight, or less than BACK_TO_BACK_MS
 * after the last one ended (before a far side can have prepared its next engine), goes to the far
 * side idle longest, which has had the most time to prepare its next engine; a run after a pause
 * goes to the one used last, whose caches are warm. BURST_RUNS such starts in a row make the pool
 * start far sides up to BURST_SIDES (within maxSides), so that each prepares its next engine while
 * another runs instead of every run waiting for the one far side's rebuild. The extra ones end
 * once idle for idleMs, like any far side above minSides.
 */
const BACK_TO_BACK_MS = 5
const BURST_RUNS = 3
const BURST_SIDES = 2

interface FarSide {
  client: ChannelClient
  link: FarSideLink
  idleTimer: ReturnType<typeof setTimeout> | undefined
  held: boolean
  /** One-off runs given to it and not yet ended (sessions are counted by its client). */
  runs: number
  /** `memoryMb` of those runs and of its open sessions. */
  memoryMb: number
  /** Runs it was given, for `retireAfterRuns`. */
  runsStarted: number
  /** Takes no new work; ended once idle. */
  retired: boolean
  /** Whose runs it serves, when the pool is partitioned; undefined until its first run or session. */
  partition: string | undefined
  /** When its last run ended (performance.now()): of idle far sides, the one idle longest goes first. */
  freedAt: number
}

/**
 * Whether far side `a` goes before `b`: the less loaded; of equally loaded ones, a started one
 * before one still starting, then for a run back to back the one idle longest, else the one used
 * last (see BACK_TO_BACK_MS).
 */
function goesBefore(a: FarSide, b: FarSide, backToBack: boolean): boolean {
  if (load(a) !== load(b)) return load(a) < load(b)
  const readiness = (side: FarSide) => (!side.client.started ? Number.POSITIVE_INFINITY : backToBack ? side.freedAt : -side.freedAt)
  return readiness(a) < readiness(b)
}

/**
 * Far sides for one backend: runs go to an idle one first, then to a new one while there is room
 * under `maxSides`, and only then share the least loaded one; so a run never waits behind a busy
 * far side while another is idle. A session stays on the far side it opened on. A far side that is
 * lost takes only its own runs and sessions with it, and the next run starts a new one.
 */
export class ChannelPool {
  private readonly sides = new Set<FarSide>()
  private readonly waiters = new Set<Waiter>()
  private closed = false
  /** Runs started back to back in a row (see BACK_TO_BACK_MS). */
  private streak = 0
  /** When the last run ended (performance.now()). */
  private lastEnd = Number.NEGATIVE_INFINITY

  constructor(private readonly options: ChannelPoolOptions) {}

  async execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    const backToBack = this.noteStart()
    const memoryMb = request.limits.memoryMb
    const partition = this.partitionOf(request.partition)
    let side: FarSide | undefined
    try {
      side = this.pick(memoryMb, partition, backToBack)
      if (side !== undefined) this.take(side, memoryMb, 1, partition)
      // A waiter is granted its room already taken.
      else side = await this.waitForRoom(request)
    } catch (error) {
      const failure = error as SandboxError
      return { ok: false, error: { code: failure.code, message: failure.message } }
    }
    if (side === undefined) return { ok: false, error: stopError(request) }
    const chosen = side
    chosen.runsStarted++
    if (this.options.retireAfterRuns !== undefined && chosen.runsStarted >= this.options.retireAfterRuns) chosen.retired = true
    const outcome = await chosen.client.execute(request)
    if (!outcome.ok && this.options.retireAfter?.(outcome) === true) chosen.retired = true
    this.give(chosen, memoryMb, 1)
    return outcome
  }

  async openSession(memoryMb: number, partition?: string, inspector = false): Promise<BackendSession> {
    const side = this.pick(memoryMb, this.partitionOf(partition))
    if (side === undefined) throw new SandboxError('BACKEND_UNAVAILABLE', this.options.label + 's are all full; try again when a run ends')
    this.take(side, memoryMb, 0, this.partitionOf(partition))
    let session: BackendSession
    try {
      session = await side.client.openSession(memoryMb, inspector)
    } catch (error) {
      this.give(side, memoryMb, 0)
      throw error
    }
    return new PoolSession(session, () => this.give(side, memoryMb, 0))
  }

  /** Starts a far side if there is none, so that the first run does not wait for one to start. */
  warm(): void {
    this.warmUpTo(1)
  }

  private warmUpTo(count: number): void {
    if (this.closed || this.sides.size >= Math.min(count, this.options.maxSides)) return
    const side = this.startSide(undefined)
    // Idle from the start: it does not hold the host, and above minSides it ends after idleMs.
    this.loadChanged(side)
  }

  /** Counts a run's start, and whether it is back to back; such runs in a row get a second far side (see BACK_TO_BACK_MS). */
  private noteStart(): boolean {
    let backToBack = performance.now() - this.lastEnd < BACK_TO_BACK_MS
    for (const side of this.sides) backToBack ||= side.runs > 0
    this.streak = backToBack ? this.streak + 1 : 0
    if (this.streak >= BURST_RUNS) this.warmUpTo(BURST_SIDES)
    return backToBack
  }

  /** Ends every far side; their runs end with `error`. */
  dispose(error: RunError): void {
    this.closed = true
    const failure = new SandboxError('DISPOSED', 'the backend was disposed')
    for (const waiter of [...this.waiters]) waiter.fail(failure)
    this.waiters.clear()
    for (const side of [...this.sides]) this.end(side, error)
  }

  /**
   * A far side with room for the run: an idle one (which of them: goesBefore), else a new one, else the least loaded one;
   * undefined when none has room (the run waits). Only far sides of the run's partition, or not yet given to any
   * (a started or warmed one), qualify; a request without a partition (a backend's own check)
   * takes only the latter.
   */
  private pick(memoryMb: number, partition: string | undefined, backToBack = false): FarSide | undefined {
    if (this.closed) throw new SandboxError('DISPOSED', 'the backend was disposed')
    let best: FarSide | undefined
    for (const side of this.sides) {
      if ((side.partition !== undefined && side.partition !== partition) || !this.fits(side, memoryMb)) continue
      if (best === undefined || goesBefore(side, best, backToBack)) best = side
    }
    if (best !== undefined && load(best) === 0) return best
    if (this.sides.size >= this.options.maxSides && best === undefined) this.endIdleOfOtherPartition(partition)
    if (this.sides.size < this.options.maxSides) return this.startSide(partition)
    return best
  }

  /** Partitions count only in a partitioned pool. */
  private partitionOf(partition: string | undefined): string | undefined {
    return this.options.partitioned === true ? partition : undefined
  }

  /** Makes room for a partition that has no far side with room: ends one idle far side of another. */
  private endIdleOfOtherPartition(partition: string | undefined): void {
    for (const side of this.sides) {
      // Never one with an open session: ending it would end that session too.
      if (side.partition === partition || load(side) > 0 || side.client.busy || side.client.sessionCount > 0) continue
      this.end(side, { code: 'BACKEND_CRASHED', message: 'ended to make room for another partition' })
      return
    }
  }

  private fits(side: FarSide, memoryMb: number): boolean {
    if (side.retired || !side.client.hasRoom) return false
    const capacity = this.options.capacity
    if (capacity === undefined) return true
    if (load(side) >= capacity.runs) return false
    // A run larger than the whole budget still runs, alone.
    return side.memoryMb === 0 || side.memoryMb + memoryMb <= capacity.memoryMb
  }

  /** Waits until a far side has room for the run; undefined when the run is stopped first. */
  private waitForRoom(request: ExecuteRequest): Promise<FarSide | undefined> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        memoryMb: request.limits.memoryMb,
        partition: this.partitionOf(request.partition),
        grant: (side) => {
          stopWatching()
          resolve(side)
        },
        fail: (error) => {
          stopWatching()
          reject(error)
        },
      }
      const stopWatching = watchStop(request, () => {
        this.waiters.delete(waiter)
        resolve(undefined)
      })
      this.waiters.add(waiter)
    })
  }

  /** Room was freed (a run ended, a far side was lost or ended): the waiters that now fit go, in order. */
  private wake(): void {
    for (const waiter of [...this.waiters]) {
      let side: FarSide | undefined
      try {
        side = this.pick(waiter.memoryMb, waiter.partition)
      } catch (error) {
        this.waiters.delete(waiter)
        waiter.fail(error as SandboxError)
        continue
      }
      if (side === undefined) return
      this.waiters.delete(waiter)
      // Claimed before the next waiter looks.
      this.take(side, waiter.memoryMb, 1, waiter.partition)
      waiter.grant(side)
    }
  }

  /** Claims room on `side`; its first partitioned work gives it to that partition for good. */
  private take(side: FarSide, memoryMb: number, runs: number, partition: string | undefined): void {
    side.memoryMb += memoryMb
    side.runs += runs
    side.partition ??= partition
  }

  private give(side: FarSide, memoryMb: number, runs: number): void {
    side.memoryMb -= memoryMb
    side.runs -= runs
    const now = performance.now()
    if (runs > 0) this.lastEnd = now
    if (side.runs === 0) side.freedAt = now
    this.wake()
    // A retired far side is ended once its last work is done.
    if (side.retired) this.loadChanged(side)
  }

  private startSide(partition: string | undefined): FarSide {
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
    const side: FarSide = {
      client,
      link,
      idleTimer: undefined,
      held: false,
      runs: 0,
      memoryMb: 0,
      runsStarted: 0,
      retired: false,
      partition,
      freedAt: 0,
    }
    this.sides.add(side)
    return side
  }

  /** Holds a busy far side, lets an idle one go, and ends extra idle ones after a while. */
  private loadChanged(side: FarSide): void {
    // A far side that reported a stopped run's end has room again for a run that waits.
    if (this.waiters.size > 0 && !this.closed) queueMicrotask(() => this.wake())
    const busy = side.client.busy
    if (busy !== side.held) {
      side.held = busy
      side.link.hold(busy)
    }
    if (side.idleTimer !== undefined) clearTimeout(side.idleTimer)
    side.idleTimer = undefined
    if (busy || side.client.sessionCount > 0 || side.runs > 0 || side.client.lost) return
    if (side.retired) {
      this.end(side, { code: 'BACKEND_CRASHED', message: 'retired' })
      return
    }
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
    // Its place may go to a run that waits (later: this may be inside a pick, making room).
    if (!this.closed) queueMicrotask(() => this.wake())
  }
}

interface Waiter {
  memoryMb: number
  partition: string | undefined
  grant(side: FarSide): void
  fail(error: SandboxError): void
}

/** A session as the pool hands it out: its memory is given back to its far side when it ends. */
class PoolSession implements BackendSession {
  private released = false

  constructor(
    private readonly inner: BackendSession,
    private readonly release: () => void,
  ) {}

  get alive(): boolean {
    const alive = this.inner.alive
    if (!alive) this.releaseOnce()
    return alive
  }

  execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    return this.inner.execute(request)
  }

  memoryUsage(): Promise<number> {
    return this.inner.memoryUsage()
  }

  async dispose(): Promise<void> {
    try {
      await this.inner.dispose()
    } finally {
      this.releaseOnce()
    }
  }

  private releaseOnce(): void {
    if (this.released) return
    this.released = true
    this.release()
  }
}

/**
 * Runs a far side holds: the one-off runs given to it (counted from the moment they are given),
 * or, if more, the runs its client has in flight (session runs too). An open session between runs
 * is no load: it counts in `memoryMb` only.
 */
function load(side: FarSide): number {
  return Math.max(side.runs, side.client.runCount)
}
