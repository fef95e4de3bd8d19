import type { RunError } from '@cordon/core'
import {
  outcomeFromDone,
  stopError,
  type BackendRunStats,
  type ExecuteOutcome,
  type ExecuteRequest,
  type GuestDone,
} from '@cordon/core/backend'

/** Runaway recursion ends a run as it does on V8, the other backends' engine. */
const STACK_OVERFLOW = { name: 'RangeError', message: 'Maximum call stack size exceeded' } as const

/** Why a run ended; the first reason the backend learns wins. */
export type EndReason = 'finished' | 'deadline' | 'aborted' | 'disposed' | 'memory' | 'stack' | 'crash' | 'error'

export interface EndState {
  reason: EndReason | undefined
  /** The error for `crash` and `error`. */
  error: RunError | undefined
  /** The guest runtime's report, for `finished`. */
  done: GuestDone | undefined
  request: ExecuteRequest
  stats: BackendRunStats
}

/** The ExecuteOutcome of a run that ended for `state.reason`. */
export function runOutcome(state: EndState): ExecuteOutcome {
  const { stats, request } = state
  const fail = (error: RunError): ExecuteOutcome => ({ ok: false, error, stats })
  const memoryError: RunError = {
    code: 'MEMORY_LIMIT',
    message: `the guest needed more memory than memoryMb (${request.limits.memoryMb} MB)`,
  }
  switch (state.reason) {
    case 'memory':
      return fail(memoryError)
    case 'deadline':
    case 'aborted':
      return fail(stopError(request))
    case 'disposed':
      return fail({ code: 'ABORTED', message: 'the session was disposed during the run' })
    case 'stack':
      // Here the guest cannot catch it: the host's own stack ran out.
      return fail({ code: 'RUNTIME_ERROR', ...STACK_OVERFLOW })
    case 'crash':
    case 'error':
      return fail(state.error ?? { code: 'BACKEND_CRASHED', message: 'QuickJS backend: the run failed without a reason' })
    case undefined:
      return fail({ code: 'BACKEND_CRASHED', message: 'QuickJS backend: the run ended without a result' })
    case 'finished':
      break
  }
  if (state.done === undefined) return fail({ code: 'BACKEND_CRASHED', message: 'QuickJS backend: the guest finished without a report' })
  const outcome = outcomeFromDone(state.done)
  const merged = { ...stats, logsDropped: outcome.stats?.logsDropped ?? 0 }
  // QuickJS's own out-of-memory error, if it ever arises without the memory guard noticing.
  if (!outcome.ok && outcome.error.name === 'InternalError' && outcome.error.message === 'out of memory') {
    return { ok: false, error: memoryError, stats: merged }
  }
  if (!outcome.ok && outcome.error.name === 'InternalError' && outcome.error.message === 'stack overflow') {
    return { ok: false, error: { ...outcome.error, ...STACK_OVERFLOW }, stats: merged }
  }
  return { ...outcome, stats: merged }
}
