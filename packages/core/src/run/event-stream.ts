import type { RunResult } from '../result.js'
import type { RunEvent, RunEventListener } from '../run-events.js'

/** The events of a run without `atMs`, which the stream stamps. */
type Unstamped<E> = E extends RunEvent ? Omit<E, 'atMs'> : never

/**
 * Delivers one run's events to its listener, in order, and never after the run resolves.
 *
 * Events are queued and delivered from a microtask, never from inside the call that produced
 * them: the listener does not run inside a backend's engine callback (where it could re-enter
 * the engine, e.g. by aborting the run) or in the middle of core's bookkeeping. `close` delivers
 * whatever is still queued and the `result` event, synchronously, before `run` resolves; later
 * events are dropped.
 *
 * The listener is host code but not trusted to behave: what it throws, or its returned promise
 * rejects with, is caught and the next event is delivered as usual (the first such error of a
 * run is reported once, as a process warning); a promise it returns is never awaited.
 */
export class EventStream {
  private readonly queue: RunEvent[] = []
  private next = 0
  private scheduled = false
  private delivering = false
  private closed = false
  private reported = false

  constructor(
    private readonly listener: RunEventListener,
    private readonly startedPerf: number,
  ) {}

  emit(event: Unstamped<RunEvent>): void {
    if (this.closed) return
    this.queue.push({ ...event, atMs: this.elapsed() })
    if (!this.scheduled) {
      this.scheduled = true
      queueMicrotask(() => {
        this.scheduled = false
        this.flush()
      })
    }
  }

  /** The run is over: deliver what is queued, then the result; nothing after. */
  close(result: RunResult): void {
    if (this.closed) return
    this.queue.push({ type: 'result', atMs: this.elapsed(), result })
    this.closed = true
    this.flush()
  }

  private flush(): void {
    // A listener that makes another event (re-entrantly) has it delivered by the loop below, in order.
    if (this.delivering) return
    this.delivering = true
    try {
      while (this.next < this.queue.length) {
        const event = this.queue[this.next++]!
        this.deliver(event)
      }
      this.queue.length = 0
      this.next = 0
    } finally {
      this.delivering = false
    }
  }

  private deliver(event: RunEvent): void {
    try {
      const returned = this.listener(event)
      if (typeof returned === 'object' && returned !== null && typeof (returned as PromiseLike<unknown>).then === 'function') {
        ;(returned as PromiseLike<unknown>).then(undefined, (error: unknown) => this.failed(error))
      }
    } catch (error) {
      this.failed(error)
    }
  }

  private failed(error: unknown): void {
    if (this.reported) return
    this.reported = true
    reportListenerError(error)
  }

  private elapsed(): number {
    return Math.round((performance.now() - this.startedPerf) * 1000) / 1000
  }
}

/** Once per run: a process warning where there is a `process` (Node, Bun, Deno), else `console.warn`. */
function reportListenerError(error: unknown): void {
  const message = `an onEvent listener threw (${describe(error)}); the run went on and later events were still delivered (reported once per run)`
  try {
    const proc = (globalThis as { process?: { emitWarning?: (message: string, options: object) => void } }).process
    if (typeof proc?.emitWarning === 'function') proc.emitWarning(message, { type: 'CordonWarning', code: 'CORDON_ON_EVENT_THREW' })
    else console.warn(`CordonWarning: ${message}`)
  } catch {
    // Reporting must never fail the run.
  }
}

function describe(error: unknown): string {
  try {
    if (error instanceof Error) return `${error.name}: ${error.message}`
    return String(error)
  } catch {
    return 'an unprintable value'
  }
}
