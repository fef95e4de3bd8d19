import { isSandboxError, type RunError } from '@cordon/core'
import type { ExecuteRequest } from '@cordon/core/backend'

/**
 * Calls `onStop` once, when the run's deadline passes or its signal aborts, whichever
 * comes first. isolated-vm's own `timeout` option only covers synchronous execution, so
 * this host timer is what ends promise chains, microtask floods and awaits on tools.
 * Returns a function that cancels the watch.
 */
export function watchStop(request: ExecuteRequest, onStop: (error: RunError) => void): () => void {
  let stopped = false
  const stop = (error: RunError) => {
    if (stopped) return
    stopped = true
    onStop(error)
  }
  const onAbort = () => stop(abortError(request.signal.reason))
  const timer = setTimeout(
    () => stop({ code: 'TIMEOUT', message: `the run took longer than timeoutMs (${request.limits.timeoutMs} ms)` }),
    Math.max(0, request.deadline - Date.now()),
  )
  if (request.signal.aborted) queueMicrotask(onAbort)
  else request.signal.addEventListener('abort', onAbort, { once: true })
  return () => {
    stopped = true
    clearTimeout(timer)
    request.signal.removeEventListener('abort', onAbort)
  }
}

/** Core replaces the error of an aborted run with its own reason; this one is a fallback. */
function abortError(reason: unknown): RunError {
  if (isSandboxError(reason)) return { code: reason.code, message: reason.message }
  return { code: 'ABORTED', message: reason instanceof Error && reason.message ? reason.message : 'the run was aborted' }
}
