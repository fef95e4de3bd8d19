import { isSandboxError } from '@cordon/core'
import type { ErrorCode, RunError, RunOptions, RunResult, Sandbox } from '@cordon/core'
import { within } from '../runner.js'
import { allowedLatenessMs, measureContention } from './cpu-contention.js'
import { describeValue } from './describe-value.js'

export interface TimedResult {
  result: RunResult
  /** Milliseconds from the `run()` call until it settled. */
  elapsedMs: number
  /** Milliseconds of that time during which some task on the machine waited for a CPU (see measureContention). */
  contendedMs: number
}

/** Default bound on a run that is expected to end by itself. */
const SETTLE_BUDGET_MS = 10_000

/**
 * Calls `sandbox.run` and measures it. Fails (instead of hanging) when the run has not
 * settled within `budgetMs`, and when `run` rejects: guest behaviour must resolve.
 */
export async function timedRun(sandbox: Sandbox, code: string, options?: RunOptions, budgetMs = SETTLE_BUDGET_MS): Promise<TimedResult> {
  const started = performance.now()
  const contended = measureContention()
  let result: RunResult
  try {
    result = await within(sandbox.run(code, options), budgetMs, `run() did not settle within ${budgetMs} ms`)
  } catch (error) {
    if (isSandboxError(error)) {
      throw new Error(`run() threw ${error.code} (${error.message}) for guest behaviour; it must resolve a RunResult`, { cause: error })
    }
    throw error
  }
  return { result, elapsedMs: performance.now() - started, contendedMs: contended() }
}

/** Runs of a check that needs its guest to have started (see timedRunThatStarts). */
const START_TRIES = 3

/**
 * `timedRun` for a check whose point needs the guest to have started before its deadline: a
 * line logged, a tool called. On a loaded machine a run can wait that long for its engine (a
 * child being spawned, a busy worker) and end TIMEOUT before its first statement, which says
 * nothing about what the check tests; such a run is tried again, up to START_TRIES runs in all.
 * A backend that loses what its guest did fails every try.
 */
export async function timedRunThatStarts(
  sandbox: Sandbox,
  code: string,
  options: RunOptions,
  started: (timed: TimedResult) => boolean,
  budgetMs?: number,
): Promise<TimedResult> {
  return triedUntilStarted(() => timedRun(sandbox, code, options, budgetMs), started)
}

/**
 * How long to let a backend get ready again before the next try: a run that ended before its
 * guest started took the spare engine or child with it, and a try at once would find none either.
 */
const RETRY_PAUSE_MS = 250

/** The retry of timedRunThatStarts for any kind of attempt: up to START_TRIES attempts, the last one returned. */
export async function triedUntilStarted<T>(attempt: () => Promise<T>, started: (outcome: T) => boolean): Promise<T> {
  let outcome = await attempt()
  for (let tries = 1; tries < START_TRIES && !started(outcome); tries++) {
    await sleep(RETRY_PAUSE_MS * tries)
    outcome = await attempt()
  }
  return outcome
}

/** For timedRunThatStarts: the guest logged something. */
export const loggedAnything = (timed: TimedResult): boolean => timed.result.logs.length > 0

/** Runs code that must succeed and returns its value. */
export async function runOk(sandbox: Sandbox, code: string, options?: RunOptions, budgetMs?: number): Promise<unknown> {
  const { result } = await timedRun(sandbox, code, options, budgetMs)
  return expectOk(result)
}

export function expectOk(result: RunResult): unknown {
  if (!result.ok) throw new Error(`expected an ok result, got ${summarize(result)}`)
  return result.value
}

export function expectError(result: RunResult, code: ErrorCode): RunError {
  if (result.ok || result.error.code !== code) throw new Error(`expected a ${code} result, got ${summarize(result)}`)
  return result.error
}

/** For limit codes: if `error.limit` is reported, it must name the right limit. */
export function expectLimitName(error: RunError, name: string, value?: number): void {
  if (error.limit === undefined) return
  if (error.limit.name !== name || (value !== undefined && error.limit.value !== value)) {
    throw new Error(`error.limit should describe ${name}${value === undefined ? '' : ` = ${value}`}, got ${describeValue(error.limit)}`)
  }
}

/** Expects `action` to throw or reject a SandboxError with `code` (host misuse). */
export async function expectHostError(action: () => unknown, code: ErrorCode, what: string): Promise<void> {
  let outcome: unknown
  try {
    outcome = await action()
  } catch (error) {
    if (isSandboxError(error, code)) return
    const description = isSandboxError(error) ? `SandboxError ${error.code}: ${error.message}` : describeValue(error)
    throw new Error(`${what}: expected a SandboxError ${code}, got ${description}`, { cause: error })
  }
  throw new Error(`${what}: expected a SandboxError ${code}, but it resolved ${summarize(outcome)}`)
}

/**
 * The sandbox still runs code correctly (after a limit, a crash, a timeout…). Within the usual
 * settle budget: after a stop, a backend may have to start a new engine or child for this run,
 * which a loaded machine slows (a fleet's server took over 5 s beside three other suites).
 */
export async function expectHealthy(sandbox: Sandbox, after: string): Promise<void> {
  const { result } = await timedRun(sandbox, 'const r = await Promise.resolve(20); r + 1').catch((error: unknown) => {
    throw new Error(`the next run after ${after} did not work: ${String(error)}`)
  })
  if (!result.ok || result.value !== 21) throw new Error(`the next run after ${after} did not work: ${summarize(result)}`)
}

/**
 * Expects a run that ends on a deadline: the code, not too early, not too late. Late means over
 * the deadline + slack, plus what CPU contention during the run excuses (see allowedLatenessMs).
 */
export function expectDeadline(timed: TimedResult, code: 'TIMEOUT' | 'ABORTED', deadlineMs: number, slackMs: number): RunError {
  const error = expectError(timed.result, code)
  expectNotLate(timed, deadlineMs, slackMs, code)
  // Timers may fire a little early; a run that ends much earlier did not wait for its deadline.
  if (timed.elapsedMs < deadlineMs - 25) {
    throw new Error(`${code} arrived after ${Math.round(timed.elapsedMs)} ms, before the ${deadlineMs} ms deadline`)
  }
  return error
}

/**
 * Expects a run that settled within `boundMs` + slack (+ what contention excuses) of `from`
 * (when `timed.elapsedMs` was counted from); `what` names the ending.
 */
export function expectNotLate(timed: TimedResult, boundMs: number, slackMs: number, what: string, from = 'run()'): void {
  const allowedMs = allowedLatenessMs(slackMs, timed.contendedMs)
  if (timed.elapsedMs > boundMs + allowedMs) {
    const excused = allowedMs > slackMs ? ` (+ ${Math.round(allowedMs - slackMs)} ms the CPU was contended)` : ''
    throw new Error(`${what} arrived ${Math.round(timed.elapsedMs)} ms after ${from}, over ${boundMs} ms + ${slackMs} ms slack${excused}`)
  }
}

export function logMessages(result: RunResult): string[] {
  return result.logs.map((entry) => entry.message)
}

export function summarize(value: unknown): string {
  return describeValue(value, 600)
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
