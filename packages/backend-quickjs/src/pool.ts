interface Pending<T> {
  capPages: number
  engine: Promise<T>
}

/**
 * Keeps up to `size` fresh engines ready, so a run does not pay for instantiating WASM and
 * evaluating the guest runtime (several ms) on its critical path. An engine serves one run or
 * one session, and is never returned to the pool. Engines are made for one memory cap: when
 * runs ask for another cap, the pooled ones are dropped and the pool refills for the new one.
 */
export class EnginePool<T> {
  private ready: Pending<T>[] = []
  private refillTimer: ReturnType<typeof setTimeout> | undefined
  private closed = false

  constructor(
    private readonly size: number,
    private readonly create: (capPages: number) => Promise<T>,
    private readonly release: (engine: T) => void,
  ) {}

  /** A fresh engine for `capPages`: a pooled one if it fits, else a new one. */
  take(capPages: number): Promise<T> {
    const index = this.ready.findIndex((pending) => pending.capPages === capPages)
    const taken = index >= 0 ? this.ready.splice(index, 1)[0] : undefined
    for (const stale of this.ready.filter((pending) => pending.capPages !== capPages)) this.discard(stale)
    this.ready = this.ready.filter((pending) => pending.capPages === capPages)
    this.scheduleRefill(capPages)
    // A pooled engine that failed to build (e.g. the host ran short of memory) is replaced.
    return taken === undefined ? this.create(capPages) : taken.engine.catch(() => this.create(capPages))
  }

  /** Drops every pooled engine; later runs create theirs on demand. */
  close(): void {
    this.closed = true
    if (this.refillTimer !== undefined) clearTimeout(this.refillTimer)
    this.refillTimer = undefined
    for (const pending of this.ready) this.discard(pending)
    this.ready = []
  }

  /**
   * Refills after a macrotask, so that the run that just took an engine (and whose first
   * steps are synchronous) goes first; runs that wait on tools then overlap the refill.
   */
  private scheduleRefill(capPages: number): void {
    if (this.closed || this.size === 0 || this.refillTimer !== undefined) return
    this.refillTimer = setTimeout(() => {
      this.refillTimer = undefined
      if (this.closed) return
      while (this.ready.length < this.size) {
        const engine = this.create(capPages)
        // Awaited by whoever takes it; a failure here then surfaces in that run.
        engine.catch(() => undefined)
        this.ready.push({ capPages, engine })
      }
    }, 0)
  }

  private discard(pending: Pending<T>): void {
    pending.engine.then(this.release, () => undefined)
  }
}
