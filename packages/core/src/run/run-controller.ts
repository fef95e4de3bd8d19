import { SandboxError } from '../errors.js'
import type { ResolvedLimits } from '../limits.js'

/** How long a backend gets, after the run must stop, before core gives up on it. */
export const BACKEND_STOP_GRACE_MS = 2_000

/**
 * Owns one run's end: the deadline timer, the user's AbortSignal, and limits the host
 * enforces. Whatever comes first aborts `signal` with a SandboxError saying why.
 */
export class RunController {
  readonly deadline: number
  private readonly controller = new AbortController()
  private readonly timer: ReturnType<typeof setTimeout>
  private readonly onUserAbort: () => void

  constructor(
    limits: ResolvedLimits,
    private readonly userSignal: AbortSignal | undefined,
    startedAt: number,
  ) {
    this.deadline = startedAt + limits.timeoutMs
    this.timer = setTimeout(
      () => this.stop(new SandboxError('TIMEOUT', `the run took longer than timeoutMs (${limits.timeoutMs} ms)`)),
      Math.max(0, this.deadline - Date.now()),
    )
    this.onUserAbort = () => this.stop(new SandboxError('ABORTED', abortMessage(userSignal?.reason)))
    userSignal?.addEventListener('abort', this.onUserAbort, { once: true })
  }

  get signal(): AbortSignal {
    return this.controller.signal
  }

  /** The reason the run was stopped, if it was. */
  get reason(): SandboxError | undefined {
    return this.controller.signal.aborted ? (this.controller.signal.reason as SandboxError) : undefined
  }

  stop(reason: SandboxError): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason)
  }

  /** Resolves once the run was stopped and the backend had its grace period to comply. */
  watchdog(): { promise: Promise<void>; cancel: () => void } {
    let grace: ReturnType<typeof setTimeout> | undefined
    let resolve!: () => void
    const promise = new Promise<void>((r) => {
      resolve = r
    })
    const arm = () => {
      grace = setTimeout(resolve, BACKEND_STOP_GRACE_MS)
    }
    if (this.signal.aborted) arm()
    else this.signal.addEventListener('abort', arm, { once: true })
    return {
      promise,
      cancel: () => {
        this.signal.removeEventListener('abort', arm)
        if (grace !== undefined) clearTimeout(grace)
      },
    }
  }

  /** The run is over: stop the clock and tell pending tools (their signal aborts). */
  finish(): void {
    clearTimeout(this.timer)
    this.userSignal?.removeEventListener('abort', this.onUserAbort)
    this.stop(new SandboxError('ABORTED', 'the run has ended'))
  }
}

function abortMessage(reason: unknown): string {
  if (reason instanceof Error && reason.message) return `the run was aborted: ${reason.message}`
  if (typeof reason === 'string' && reason) return `the run was aborted: ${reason}`
  return 'the run was aborted'
}
