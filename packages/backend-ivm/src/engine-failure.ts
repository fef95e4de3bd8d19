import type { RunError } from '@cordon/core'

/** isolated-vm's message when V8 hit the isolate's heap limit and the isolate was disposed. */
const MEMORY_LIMIT_MESSAGE = /memory limit/i

export function memoryLimitError(memoryMb: number): RunError {
  return { code: 'MEMORY_LIMIT', message: `the guest used more memory than memoryMb (${memoryMb} MB)` }
}

/**
 * Why a call into the isolate failed, when this backend did not stop the run itself:
 * the memory limit, or an engine failure that is not the guest's doing.
 */
export function engineFailure(error: unknown, memoryMb: number): RunError {
  const message = error instanceof Error ? error.message : String(error)
  if (MEMORY_LIMIT_MESSAGE.test(message)) return memoryLimitError(memoryMb)
  return { code: 'BACKEND_CRASHED', message: `isolated-vm failed: ${message}` }
}
