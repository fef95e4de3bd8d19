import { SandboxError, type ExecuteOutcome, type ExecuteRequest } from '@cordon/core/backend'
import { describeError } from './engine-failure.js'

/** The outcome of a run whose signal aborted before any guest code ran (both thread modes). */
export function notStarted(request: ExecuteRequest): ExecuteOutcome {
  const reason: unknown = request.signal.reason
  if (SandboxError.isInstance(reason)) return { ok: false, error: { code: reason.code, message: reason.message } }
  return { ok: false, error: { code: 'ABORTED', message: 'the run was aborted before it started' } }
}

/** Why QuickJS is unavailable, with the fix when there is one; `what` names the step that failed otherwise. */
export function unavailableMessage(error: unknown, what: string): string {
  if (SandboxError.isInstance(error)) return error.fix === undefined ? error.message : error.message + '. ' + error.fix
  return what + ': ' + describeError(error)
}
