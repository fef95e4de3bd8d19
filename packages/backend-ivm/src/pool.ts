import type { GuestVm } from './guest-vm.js'

export interface IsolatePoolOptions {
  /** Isolates kept ready. 0 turns the pool off. */
  size: number
  /** Pooled isolates are disposed after this long without a run. */
  idleMs: number
  create(memoryMb: number): Promise<GuestVm>
}

/**
 * Isolates created ahead of time so a run does not wait for isolate and context creation
 * and the runtime's evaluation. Every isolate serves one run, or one session, and is then
 * disposed; the pool never takes one back. Isolates carry their memory limit from creation,
 * so the pool holds isolates of one `memoryMb`: the one the last single run asked for.
 */
export class IsolatePool {
  private ready: Promise<GuestVm>[] = []
  private memoryMb: number | undefined
  private idleTimer: ReturnType<typeof setTimeout> | undefined
  private refillTimer: ReturnType<typeof setTimeout> | undefined
  private closed = false

  constructor(private readonly options: IsolatePoolOptions) {}

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
    // An empty pool (first run, or a burst) also starts refilling now; otherwise the
    // refill waits for `runEnded`, so that it does not compete with this run for the CPU.
    if (this.ready.length === 0 && pooled === undefined) this.refillSoon()
    if (pooled !== undefined) {
      try {
        return await pooled
      } catch {
        // A failed preparation is retried once, in the foreground, so its error is the run's.
      }
    }
    return this.options.create(memoryMb)
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

  /** Pooled (unused) isolates; for tests and measurements. */
  get size(): number {
    return this.ready.length
  }

  dispose(): void {
    this.closed = true
    this.drain()
    if (this.refillTimer !== undefined) clearTimeout(this.refillTimer)
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer)
  }

  /**
   * A run ended: top the pool up. Creating an isolate takes ~2 ms of main-thread time and
   * evaluating the runtime ~3 ms on another thread, which would slow a run going on.
   */
  runEnded(): void {
    if (this.options.size > 0) this.refillSoon()
  }

  private refillSoon(): void {
    if (this.refillTimer !== undefined) return
    this.refillTimer = setTimeout(() => {
      this.refillTimer = undefined
      const memoryMb = this.memoryMb
      if (this.closed || memoryMb === undefined) return
      while (this.ready.length < this.options.size) {
        const vm = this.options.create(memoryMb)
        vm.catch(() => undefined) // take() reports it if this one is ever used
        this.ready.push(vm)
      }
    }, 0)
    this.refillTimer.unref?.()
  }

  private armIdleTimer(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer)
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined
      this.drain()
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
