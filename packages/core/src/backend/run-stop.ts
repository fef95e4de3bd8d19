import { SandboxError, isSandboxError } from '../errors.js'
import type { RunError } from '../result.js'
import type { ExecuteRequest } from './v1/sandbox-backend.js'

/**
 * The one stop watcher of a run. Whoever calls `execute` (core's run pipeline, or a test driving a
 * backend directly) makes a RunStop: it holds the run's only deadline timer and the user's
 * AbortSignal, and aborts `signal` with a SandboxError saying why (TIMEOUT, ABORTED, or a limit
 * the host enforces). A backend only watches that signal (`watchStop`) and reports a stopped run
 * with `stopError`: one timer per run, one wording per code.
 */

/** How long a backend gets, after the run must stop, before the caller gives up on it. */
export const BACKEND_STOP_GRACE_MS = 2_000

/** The reply a synchronous host call gets once its run is over. */
export const RUN_ENDED_REPLY = '{"ok":false,"message":"the run has ended"}'

export function timeoutError(timeoutMs: number): RunError {
  return { code: 'TIMEOUT', message: `the run took longer than timeoutMs (${timeoutMs} ms)` }
}

/** The error for a run whose signal aborted with `reason`: the caller's SandboxError keeps its code. */
export function abortedError(reason: unknown): RunError {
  if (isSandboxError(reason)) return { code: reason.code, message: reason.message }
  return { code: 'ABORTED', message: abortMessage(reason) }
}

/** The message of an abort by the user's own signal, whatever its reason. */
export function abortMessage(reason: unknown): string {
  if (reason instanceof Error && reason.message) return `the run was aborted: ${reason.message}`
  if (typeof reason === 'string' && reason) return `the run was aborted: ${reason}`
  return 'the run was aborted'
}

/**
 * What a backend reports for a run it stopped: the signal's reason when it was aborted; otherwise
 * the engine's own deadline check stopped the guest (an interrupt handler, a child's own timer) a
 * moment before the signal fired, which is a TIMEOUT all the same.
 */
export function stopError(request: Pick<ExecuteRequest, 'signal' | 'limits'>): RunError {
  return request.signal.aborted ? abortedError(request.signal.reason) : timeoutError(request.limits.timeoutMs)
}

const stopPolls = new WeakMap<AbortSignal, () => void>()

/**
 * Registers how to learn of a stop that the event loop cannot deliver while guest code keeps this
 * thread busy (a shared flag the host sets): `poll` aborts `signal`'s controller when it finds one.
 */
export function setStopPoll(signal: AbortSignal, poll: () => void): void {
  stopPolls.set(signal, poll)
}

/**
 * Whether the run must stop. An engine that checks from inside guest code (an interrupt handler)
 * calls this rather than reading `signal.aborted`, so a stop set in shared memory reaches it too.
 */
export function pollStop(signal: AbortSignal): boolean {
  if (!signal.aborted) stopPolls.get(signal)?.()
  return signal.aborted
}

/**
 * Calls `onStop` once, with the error to report, when the request's signal aborts (at once if it
 * already has). Returns a function that stops watching.
 */
export function watchStop(request: Pick<ExecuteRequest, 'signal' | 'limits'>, onStop: (error: RunError) => void): () => void {
  let watching = true
  const fire = () => {
    if (!watching) return
    watching = false
    onStop(stopError(request))
  }
  if (request.signal.aborted) queueMicrotask(fire)
  else request.signal.addEventListener('abort', fire, { once: true })
  return () => {
    watching = false
    request.signal.removeEventListener('abort', fire)
  }
}

/** Owns one run's end: the deadline timer, the user's AbortSignal, and stops the host orders. */
export class RunStop {
  readonly deadline: number
  private readonly controller = new AbortController()
  private readonly timer: ReturnType<typeof setTimeout>
  private readonly onUserAbort: () => void

  constructor(
    timeoutMs: number,
    private readonly userSignal?: AbortSignal,
    startedAt = Date.now(),
  ) {
    this.deadline = startedAt + timeoutMs
    const expired = timeoutError(timeoutMs)
    this.timer = setTimeout(() => this.stop(new SandboxError(expired.code, expired.message)), Math.max(0, this.deadline - Date.now()))
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
    if (!this.controller.signal.aborted) this.controller.abort(runEndedError())
  }
}

/**
 * The reason every finished run's signals carry. Made without a stack trace: it would show only
 * this file, and capturing one made this constructor the largest core function in a CPU profile
 * of back-to-back runs.
 */
export function runEndedError(): SandboxError {
  const limit = Error.stackTraceLimit
  if (typeof limit !== 'number') return new SandboxError('ABORTED', 'the run has ended')
  try {
    Error.stackTraceLimit = 0
  } catch {
    // A frozen Error (a hardened realm): the stack is captured as usual.
    return new SandboxError('ABORTED', 'the run has ended')
  }
  try {
    return new SandboxError('ABORTED', 'the run has ended')
  } finally {
    Error.stackTraceLimit = limit
  }
}
