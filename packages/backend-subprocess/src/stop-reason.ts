import type { ExecuteOutcome, ExecuteRequest } from '@cordon/core/backend'

/**
 * The outcome of a run stopped from outside. Core replaces it with its own abort reason;
 * this only has to be right when the backend's own deadline timer fires first (Node timers
 * may fire a millisecond before `Date.now()` reaches the deadline, so the timer says TIMEOUT
 * by itself rather than by comparing clocks).
 */
export function stoppedOutcome(request: ExecuteRequest, byDeadline: boolean): ExecuteOutcome {
  const code = (request.signal.reason as { code?: unknown } | undefined)?.code
  if (byDeadline || code === 'TIMEOUT' || (!request.signal.aborted && Date.now() >= request.deadline)) {
    return { ok: false, error: { code: 'TIMEOUT', message: `the run passed its deadline (timeoutMs ${request.limits.timeoutMs})` } }
  }
  return { ok: false, error: { code: 'ABORTED', message: 'the run was aborted' } }
}
