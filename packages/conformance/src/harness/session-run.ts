import { isSandboxError } from '@cordon/core'
import type { RunResult, Session, SessionRunOptions } from '@cordon/core'
import { within } from '../runner.js'
import { measureContention } from './cpu-contention.js'
import { expectOk, type TimedResult } from './run.js'

/** `timedRun` for a session: fails instead of hanging, and when a run rejects for guest behaviour. */
export async function timedSessionRun(
  session: Session,
  code: string,
  options?: SessionRunOptions,
  budgetMs = 10_000,
): Promise<TimedResult> {
  const started = performance.now()
  const contended = measureContention()
  let result: RunResult
  try {
    result = await within(session.run(code, options), budgetMs, `session.run() did not settle within ${budgetMs} ms`)
  } catch (error) {
    if (isSandboxError(error)) {
      throw new Error(`session.run() threw ${error.code} (${error.message}); it must resolve a RunResult`, { cause: error })
    }
    throw error
  }
  return { result, elapsedMs: performance.now() - started, contendedMs: contended() }
}

export async function sessionRunOk(session: Session, code: string, options?: SessionRunOptions): Promise<unknown> {
  return expectOk((await timedSessionRun(session, code, options)).result)
}
