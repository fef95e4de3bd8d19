import { SandboxError } from '../errors.js'
import { abortMessage, timeoutError } from '../backend/run-stop.js'
import type { ResolvedAdmission } from './admission-options.js'

/** A place among the sandbox's runs in flight; `release` gives it back (more calls do nothing). */
export interface RunPlace {
  release(): void
}

interface Waiter {
  admit(place: RunPlace): void
}

/**
 * Counts a sandbox's runs in flight and admits a new one only while fewer than
 * `maxConcurrentRuns` are. A run that finds every place taken waits in first-come order for at
 * most `maxQueueMs` (none by default), then is refused with BUSY; its signal (ABORTED) and its
 * deadline (TIMEOUT) end the wait sooner. A run that stops waiting leaves the queue at once.
 */
export class RunAdmission {
  private running = 0
  private readonly waiting: Waiter[] = []

  constructor(private readonly options: ResolvedAdmission) {}

  /** Resolves a place, or the SandboxError that ends the run without it reaching the backend. */
  enter(signal: AbortSignal | undefined, deadline: number, timeoutMs: number): Promise<RunPlace | SandboxError> {
    if (this.running < this.options.maxConcurrentRuns && this.waiting.length === 0) return Promise.resolve(this.take())
    const { maxQueueMs, maxConcurrentRuns } = this.options
    const busy = () =>
      new SandboxError(
        'BUSY',
        maxQueueMs === 0
          ? `the sandbox already has maxConcurrentRuns (${maxConcurrentRuns}) runs in flight`
          : `no place among maxConcurrentRuns (${maxConcurrentRuns}) runs in flight came free within maxQueueMs (${maxQueueMs} ms)`,
      )
    if (maxQueueMs === 0) return Promise.resolve(busy())
    if (signal?.aborted) return Promise.resolve(new SandboxError('ABORTED', abortMessage(signal.reason)))
    return new Promise((resolve) => {
      const untilDeadline = deadline - Date.now()
      const timedOut = untilDeadline <= maxQueueMs
      const leave = (error: SandboxError) => {
        const index = this.waiting.indexOf(waiter)
        if (index === -1) return
        this.waiting.splice(index, 1)
        cleanup()
        resolve(error)
      }
      const onAbort = () => leave(new SandboxError('ABORTED', abortMessage(signal?.reason)))
      const timer = setTimeout(() => leave(timedOut ? timeoutRefusal(timeoutMs) : busy()), Math.max(0, Math.min(untilDeadline, maxQueueMs)))
      const cleanup = () => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
      }
      const waiter: Waiter = {
        admit: (place) => {
          cleanup()
          resolve(place)
        },
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.waiting.push(waiter)
    })
  }

  private take(): RunPlace {
    this.running++
    let held = true
    return {
      release: () => {
        if (!held) return
        held = false
        this.running--
        this.admitNext()
      },
    }
  }

  private admitNext(): void {
    while (this.running < this.options.maxConcurrentRuns && this.waiting.length > 0) {
      this.waiting.shift()!.admit(this.take())
    }
  }
}

function timeoutRefusal(timeoutMs: number): SandboxError {
  const { code, message } = timeoutError(timeoutMs)
  return new SandboxError(code, `${message}, waiting for a place among the runs in flight`)
}
