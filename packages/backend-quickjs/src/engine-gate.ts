import type { EngineHandle, EngineRuntime } from './engine-api.js'

/** How long the guest's promise jobs may run before the host's event loop gets a turn. */
const SLICE_MS = 20
/** Jobs run per executePendingJobs call, between checks of the slice. */
const JOB_BATCH = 256

export interface GateHooks {
  /** False once the run is over: nothing enters the engine any more. */
  isOpen(): boolean
  /** A host exception unwound WASM frames (host stack overflow, a trap, a host bug). */
  onHostException(error: unknown): void
  /** executePendingJobs stopped on an exception (interrupt, out of memory). Do not dispose it. */
  onJobError(error: EngineHandle): void
  /**
   * No entry is queued and the job queue is empty: a task to run next (the runtime's `stall`
   * when nothing can wake the guest any more), or undefined.
   */
  whenIdle(): (() => void) | undefined
}

const yieldToHost: (resume: () => void) => void =
  typeof setImmediate === 'function' ? (resume) => void setImmediate(resume) : (resume) => void setTimeout(resume, 0)

/**
 * The one way into a run's QuickJS runtime. Entries are serialized (tool results and timers
 * queue up while the engine is busy), each is timed (QuickJS runs on this thread, so that time
 * is the guest's CPU time), and the promise job queue is drained after each.
 */
export class EngineGate {
  cpuMs = 0
  /** A host exception left QuickJS's C state half-unwound: never enter this instance again. */
  broken = false
  private readonly tasks: (() => void)[] = []
  private needsDrain = false
  private pumping = false
  private scheduled = false

  constructor(
    private readonly runtime: EngineRuntime,
    private readonly hooks: GateHooks,
  ) {}

  /** Runs `fn` inside the engine now. Returns undefined if the engine is broken or broke. */
  enter<T>(fn: () => T): T | undefined {
    if (this.broken) return undefined
    const started = performance.now()
    try {
      return fn()
    } catch (error) {
      this.broken = true
      this.hooks.onHostException(error)
      return undefined
    } finally {
      this.cpuMs += performance.now() - started
    }
  }

  /** Runs `fn` inside the engine and then drains the job queue. */
  run(fn: () => void): void {
    this.tasks.push(fn)
    this.pump()
  }

  /** Queues `fn` for when the engine is free (called from host callbacks). */
  enqueue(fn: () => void): void {
    if (!this.hooks.isOpen()) return
    this.tasks.push(fn)
    if (this.pumping || this.scheduled) return
    this.scheduled = true
    queueMicrotask(() => {
      this.scheduled = false
      this.pump()
    })
  }

  private pump(): void {
    if (this.pumping) return
    this.pumping = true
    try {
      while (this.hooks.isOpen() && !this.broken) {
        if (this.needsDrain) {
          if (!this.drainSlice()) return
          this.needsDrain = false
        }
        const task = this.tasks.shift() ?? this.hooks.whenIdle()
        if (task === undefined) return
        this.enter(task)
        this.needsDrain = true
      }
    } finally {
      this.pumping = false
    }
  }

  /** Runs jobs for up to SLICE_MS. False when it paused and will resume on a later macrotask. */
  private drainSlice(): boolean {
    const sliceEnd = performance.now() + SLICE_MS
    while (this.hooks.isOpen() && !this.broken) {
      const result = this.enter(() => this.runtime.executePendingJobs(JOB_BATCH))
      if (result === undefined) return true
      if (result.error) {
        this.hooks.onJobError(result.error)
        result.error.dispose()
        return true
      }
      // Fewer jobs than asked for ran: the queue is empty (an engine call fewer per drain).
      if (result.value < JOB_BATCH) return true
      if (!this.enter(() => this.runtime.hasPendingJob())) return true
      if (performance.now() >= sliceEnd) {
        yieldToHost(() => this.pump())
        return false
      }
    }
    return true
  }
}
