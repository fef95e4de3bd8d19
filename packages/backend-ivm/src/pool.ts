import type { GuestVm } from './guest-vm.js'

export interface IsolatePoolOptions {
  /** Isolates kept ready. 0 turns the pool off. */
  size: number
  /** Most isolates kept ready while runs come back to back (at least `size`). */
  burstSize: number
  /** Pooled isolates are disposed after this long without a run. */
  idleMs: number
  create(memoryMb: number): Promise<GuestVm>
  /** Whether runs are in flight: isolates beyond `size` are made only when none is. */
  busy(): boolean
}

/**
 * A run that starts within this long of the previous run's end, and finds no isolate finished,
 * means runs are coming back to back: the pool then keeps more isolates ready.
 */
const BACK_TO_BACK_MS = 3

/**
 * Isolates created ahead of time so a run does not wait for isolate and context creation
 * and the runtime's evaluation. Every isolate serves one run, or one session, and is then
 * disposed; the pool never takes one back. Isolates carry their memory limit from creation,
 * so the pool holds isolates of one `memoryMb`: the one the last single run asked for.
 *
 * How many it keeps follows the runs: `size` when they are spaced; when back-to-back runs
 * find no isolate finished, twice as many each time up to `burstSize`, one fewer for each
 * spaced run after. Making an isolate blocks the main thread for ~3 ms (`new Isolate`), and
 * a burst leaves no pause to do it in: those beyond `size` are made while no run is in flight.
 */
export class IsolatePool {
  private ready: Promise<GuestVm>[] = []
  private memoryMb: number | undefined
  private target: number
  private lastEndAt = Number.NEGATIVE_INFINITY
  /** The pool's isolates not made yet (a run may have taken some: it waits for them). */
  private readonly unfinished = new Set<Promise<GuestVm>>()
  private idleTimer: ReturnType<typeof setTimeout> | undefined
  private refillTimer: ReturnType<typeof setTimeout> | undefined
  /** The pending look may make an isolate while runs are in flight (see refillSoon). */
  private refillAlways = false
  private closed = false

  constructor(private readonly options: IsolatePoolOptions) {
    this.target = options.size
  }

  /** An isolate for one run: a pooled one when it has the right memory limit, else a new one. */
  async take(memoryMb: number): Promise<GuestVm> {
    if (this.closed) throw new Error('the isolate pool was disposed')
    if (this.options.size <= 0) return this.options.create(memoryMb)
    if (this.memoryMb !== memoryMb) {
      this.drain()
      this.memoryMb = memoryMb
    }
    const pooled = this.ready.shift()
    this.armIdleTimer()
    const backToBack = performance.now() - this.lastEndAt < BACK_TO_BACK_MS
    // A run that has to wait for its isolate, empty-handed or for one still being made, missed.
    this.adjustTarget(pooled === undefined || this.unfinished.has(pooled), backToBack)
    if (pooled === undefined) return this.makeThenRefill(memoryMb, backToBack)
    try {
      return await pooled
    } catch {
      // A failed preparation is retried once, in the foreground, so its error is the run's.
      return this.options.create(memoryMb)
    }
  }

  /**
   * An empty pool (a first run, or a burst past its depth): the run's own isolate, made alone.
   * Made beside it, the pool's isolates took the main thread (`new Isolate`) and the cores from
   * it: a fresh process's first run waited ~18 ms for its isolate instead of ~8. Then, in a burst,
   * the refill starts at once (the next run is due as this one ends); otherwise only if no run is
   * in flight by then, and else at `runEnded`, so as not to slow the run down.
   */
  private makeThenRefill(memoryMb: number, backToBack: boolean): Promise<GuestVm> {
    const own = this.options.create(memoryMb)
    const refill = () => {
      if (!this.closed) this.refillSoon(!backToBack)
    }
    own.then(refill, refill)
    return own
  }

  /**
   * For a session: a pooled isolate when the pool holds this `memoryMb` (or has no size yet),
   * else a new one. Unlike `take`, another size does not drain the pool: a session's memory
   * cap says nothing about the size the next single runs will ask for.
   */
  async takeIfFits(memoryMb: number): Promise<GuestVm> {
    if (this.closed) throw new Error('the isolate pool was disposed')
    if (this.options.size > 0 && (this.memoryMb === undefined || this.memoryMb === memoryMb)) return this.take(memoryMb)
    return this.options.create(memoryMb)
  }

  /** Pooled (unused) isolates, ready or being made; for tests and measurements. */
  get size(): number {
    return this.ready.length
  }

  /** How many isolates the pool is keeping ready now; for tests and measurements. */
  get depth(): number {
    return this.target
  }

  dispose(): void {
    this.closed = true
    this.drain()
    if (this.refillTimer !== undefined) clearTimeout(this.refillTimer)
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer)
  }

  /**
   * A run ended: top the pool up. Creating an isolate takes ~3 ms of main-thread time and
   * evaluating the runtime a few ms on another thread, which would slow a run going on.
   */
  runEnded(): void {
    this.lastEndAt = performance.now()
    if (this.options.size > 0) this.refillSoon()
  }

  /** A miss right after a run ended doubles the depth (up to burstSize); a spaced run lowers it by one. */
  private adjustTarget(missed: boolean, backToBack: boolean): void {
    const { size, burstSize } = this.options
    if (missed && backToBack) this.target = Math.min(burstSize, this.target * 2)
    else if (!backToBack) this.target = Math.max(size, this.target - 1)
  }

  /**
   * Looks at the pool on the next turn. A run's start or end may top it up to `size` while other
   * runs are in flight (as before them); `onlyWhenIdle` is for the pool's own follow-ups, which
   * must not start making an isolate in the middle of a run.
   */
  private refillSoon(onlyWhenIdle = false): void {
    if (!onlyWhenIdle) this.refillAlways = true
    if (this.refillTimer !== undefined) return
    this.refillTimer = setTimeout(() => {
      this.refillTimer = undefined
      const always = this.refillAlways
      this.refillAlways = false
      if (always || !this.options.busy()) this.refillOne()
    }, 0)
    this.refillTimer.unref?.()
  }

  /**
   * Starts making one isolate if the pool wants one, and looks again on the next turn: up to
   * `size` of the pool's are made at once (each on its own thread after `new Isolate`), but
   * never two started in one turn, which would hold the main thread for twice as long.
   */
  private refillOne(): void {
    const memoryMb = this.memoryMb
    if (this.closed || memoryMb === undefined) return
    const wanted = this.options.busy() ? this.options.size : this.target
    if (this.ready.length >= wanted || this.ready.filter((p) => this.unfinished.has(p)).length >= this.options.size) return
    const vm = this.options.create(memoryMb)
    vm.catch(() => undefined) // take() reports it if this one is ever used
    this.ready.push(vm)
    this.unfinished.add(vm)
    const made = () => {
      this.unfinished.delete(vm)
      this.refillSoon(true)
    }
    vm.then(made, made)
    this.refillSoon(true)
  }

  private armIdleTimer(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer)
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined
      this.drain()
      this.target = this.options.size
    }, this.options.idleMs)
    this.idleTimer.unref?.()
  }

  private drain(): void {
    const pending = this.ready
    this.ready = []
    for (const vm of pending)
      vm.then(
        (v) => v.dispose(),
        () => undefined,
      )
  }
}
