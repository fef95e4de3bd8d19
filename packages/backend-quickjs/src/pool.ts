interface Pending<T> {
  capPages: number
  engine: Promise<T>
  /** Starts making it now, if it waits for its turn (a recycled engine). */
  start?: () => void
  /** Gives it up if it was not started yet (a recycled engine). */
  drop?: () => void
}

/**
 * Keeps up to `size` fresh engines ready, so a run does not pay for instantiating WASM and
 * evaluating the guest runtime (several ms) on its critical path. An engine serves one run or
 * one session; the instance of a one-off run's engine may come back made fresh again
 * (`recycled`), never the engine itself. Engines are made for one memory cap: when runs ask for
 * another cap, the pooled ones are dropped and the pool refills for the new one.
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
    // A run waits for it: made now rather than on its turn.
    taken?.start?.()
    // A pooled engine that failed to build (e.g. the host ran short of memory) is replaced.
    return taken === undefined ? this.create(capPages) : taken.engine.catch(() => this.create(capPages))
  }

  /**
   * An engine a run used, made fresh again by `renew` after a macrotask (as a refill; undefined when
   * it cannot be, and a new one is made instead). It goes first in line, beside at most `size`
   * others, so that back-to-back runs take it instead of waiting for a new one.
   */
  recycled(capPages: number, renew: () => Promise<T> | undefined): void {
    if (this.closed || this.size === 0) return
    let start!: () => void
    let drop!: () => void
    const engine = new Promise<T>((resolve, reject) => {
      let started = false
      const begin = () => {
        if (started) return false
        started = true
        cancelTurn()
        return true
      }
      start = () => {
        if (!begin()) return
        if (this.closed) return reject(new Error('the engine pool was closed'))
        try {
          ;(renew() ?? this.create(capPages)).then(resolve, reject)
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)))
        }
      }
      drop = () => {
        if (begin()) reject(new Error('the engine was dropped before it was made'))
      }
    })
    const cancelTurn = nextTurn(() => start())
    // Awaited by whoever takes it, or released when it is dropped.
    engine.catch(() => undefined)
    const kept = [{ capPages, engine, start, drop }, ...this.ready.filter((pending) => pending.capPages === capPages)]
    for (const pending of this.ready.filter((pending) => pending.capPages !== capPages)) this.discard(pending)
    for (const extra of kept.slice(this.size + 1)) this.discard(extra)
    this.ready = kept.slice(0, this.size + 1)
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
    pending.drop?.()
    pending.engine.then(this.release, () => undefined)
  }
}

/**
 * Calls `fn` once the current macrotask and the I/O it started are done (setImmediate where there
 * is one: setTimeout's 0 is 1 ms in Node, longer than a run); returns how to cancel.
 */
function nextTurn(fn: () => void): () => void {
  if (typeof setImmediate === 'function') {
    const immediate = setImmediate(fn)
    return () => clearImmediate(immediate)
  }
  const timer = setTimeout(fn, 0)
  return () => clearTimeout(timer)
}
