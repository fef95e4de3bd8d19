/**
 * Warm children, keyed by `memoryMb` (a child's heap cap is fixed when it starts). Each key
 * keeps up to `size` children started or ready; taking one starts a replacement in the
 * background. A key unused for `idleMs` loses its spare children. A child taken from the
 * pool serves one run, or one session until it ends; it is never handed out again.
 * Idle children do not keep the host process alive; `dispose` kills every child the pool
 * ever started that is still running (spares, runs, sessions) and waits.
 *
 * Children start one per turn of the event loop. Starting a process blocks the host's thread
 * (fork: a few ms, 10-100 ms on a loaded VM), and a burst of runs with no spare, or a refill of
 * several spares, used to start them all in one turn: the deadline timers of runs in flight then
 * fired hundreds of ms late.
 */
import type { GuestChild } from './guest-child.js'

const REFILL_DELAY_MS = 25
/** How many distinct memoryMb values keep warm children at once. */
const MAX_WARM_SIZES = 4

interface Bucket {
  /** Children started for this key and not yet taken, oldest first. */
  spare: GuestChild[]
  idleTimer: NodeJS.Timeout | undefined
}

export class WarmPool {
  private readonly buckets = new Map<number, Bucket>()
  private readonly live = new Set<GuestChild>()
  private disposed = false
  /** Settles when the last child start that was asked for has happened (see spawnTurn). */
  private lastSpawn: Promise<void> = Promise.resolve()
  /** The refill under way per memoryMb key. */
  private readonly refills = new Map<number, Promise<void>>()
  /** The last failure of a background start, for diagnostics. */
  lastStartError: string | undefined

  constructor(
    private readonly start: (memoryMb: number) => GuestChild,
    private readonly size: number,
    private readonly idleMs: number,
  ) {}

  /** A ready child for `memoryMb`, warm if one is available. Rejects if it cannot start. */
  async acquire(memoryMb: number): Promise<GuestChild> {
    if (this.disposed) throw new Error('the pool was disposed')
    const bucket = this.bucket(memoryMb)
    const index = bucket.spare.findIndex((child) => child.isReady)
    let child = index >= 0 ? bucket.spare.splice(index, 1)[0] : bucket.spare.shift()
    if (child === undefined) {
      await this.spawnTurn()
      if (this.disposed) throw new Error('the pool was disposed')
      child = this.spawn(memoryMb)
    }
    child.setRef(true)
    // Starting a process blocks the host for a few ms (fork), so the replacement is started
    // after a short run ends (`replenish`) or, for a longer run, a little after it began.
    setTimeout(() => void this.refill(memoryMb), REFILL_DELAY_MS).unref()
    await child.ready
    return child
  }

  /** A run on a child of `memoryMb` ended: top the spares up now. */
  replenish(memoryMb: number): void {
    setImmediate(() => void this.refill(memoryMb))
  }

  /** Fills the key's spares and resolves when they are ready (or failed). */
  async warm(memoryMb: number): Promise<void> {
    if (this.disposed) return
    const bucket = this.bucket(memoryMb)
    // Not idle while it is being warmed: spares slower to start than `idleMs` (a loaded machine)
    // were ended mid-warm. Its clock starts once they are ready (below).
    clearTimeout(bucket.idleTimer)
    await this.refill(memoryMb)
    // Spares do not keep the host alive; while someone waits for them, they must.
    const waiting = bucket.spare.filter((child) => !child.isReady)
    for (const child of waiting) child.setRef(true)
    await Promise.all(waiting.map((child) => child.ready.catch(() => {})))
    for (const child of waiting) if (bucket.spare.includes(child)) child.setRef(false)
    if (!this.disposed && this.buckets.get(memoryMb) === bucket) this.bucket(memoryMb)
  }

  async dispose(): Promise<void> {
    this.disposed = true
    for (const bucket of this.buckets.values()) clearTimeout(bucket.idleTimer)
    this.buckets.clear()
    const all = [...this.live]
    for (const child of all) {
      // Keep the host alive until every child is reaped, then kill.
      child.setRef(true)
      child.kill()
    }
    await Promise.all(all.map((child) => child.closed))
  }

  private bucket(memoryMb: number): Bucket {
    let bucket = this.buckets.get(memoryMb)
    if (bucket === undefined) {
      // Runs with ever-changing memoryMb values must not pile up warm children.
      if (this.buckets.size >= MAX_WARM_SIZES) this.shrink(this.buckets.keys().next().value as number)
      bucket = { spare: [], idleTimer: undefined }
    } else {
      this.buckets.delete(memoryMb) // Re-inserted below: the Map's order is least recently used first.
    }
    this.buckets.set(memoryMb, bucket)
    clearTimeout(bucket.idleTimer)
    const current = bucket
    bucket.idleTimer = setTimeout(() => {
      if (this.buckets.get(memoryMb) === current) this.shrink(memoryMb)
    }, this.idleMs)
    bucket.idleTimer.unref()
    return bucket
  }

  /** Starts spares for the key, one per turn, until it has `size`; one refill per key at a time. */
  private refill(memoryMb: number): Promise<void> {
    let refill = this.refills.get(memoryMb)
    if (refill === undefined) {
      refill = this.fill(memoryMb).finally(() => this.refills.delete(memoryMb))
      this.refills.set(memoryMb, refill)
    }
    return refill
  }

  private async fill(memoryMb: number): Promise<void> {
    for (;;) {
      const bucket = this.buckets.get(memoryMb)
      if (this.disposed || bucket === undefined) return
      bucket.spare = bucket.spare.filter((child) => child.alive)
      if (bucket.spare.length >= this.size) return
      await this.spawnTurn()
      if (this.disposed || this.buckets.get(memoryMb) !== bucket) return
      let child: GuestChild
      try {
        child = this.spawn(memoryMb)
      } catch (error) {
        this.lastStartError = (error as Error).message
        return
      }
      child.setRef(false)
      bucket.spare.push(child)
      child.ready.catch((error: Error) => {
        this.lastStartError = error.message
      })
    }
  }

  /** Resolves when the caller may start a child: one start per turn of the event loop. */
  private spawnTurn(): Promise<void> {
    const turn = this.lastSpawn.then(() => new Promise<void>((resolve) => setImmediate(resolve)))
    this.lastSpawn = turn
    return turn
  }

  private shrink(memoryMb: number): void {
    const bucket = this.buckets.get(memoryMb)
    if (bucket === undefined) return
    clearTimeout(bucket.idleTimer)
    this.buckets.delete(memoryMb)
    for (const child of bucket.spare) child.kill()
  }

  private spawn(memoryMb: number): GuestChild {
    const child = this.start(memoryMb)
    this.live.add(child)
    void child.closed.then(() => {
      this.live.delete(child)
      const bucket = this.buckets.get(memoryMb)
      if (bucket !== undefined) bucket.spare = bucket.spare.filter((spare) => spare !== child)
    })
    return child
  }
}
