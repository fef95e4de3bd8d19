import type { RunError, RunResult } from '@cordon/core'
import type { ExecutionResult, NormalizedError } from '@tanstack/ai-code-mode'
import { consoleLines } from './console-lines.js'

/** Names TanStack's drivers give the ends they report (its QuickJS driver's, where it has one). */
const NAMES: Partial<Record<RunError['code'], string>> = {
  TIMEOUT: 'TimeoutError',
  MEMORY_LIMIT: 'MemoryLimitError',
  DEADLOCK: 'DeadlockError',
  ABORTED: 'AbortError',
  SYNTAX_ERROR: 'SyntaxError',
}

/**
 * A cordon result as TanStack's ExecutionResult. The value crosses as JSON, as TanStack's drivers
 * return it (they `JSON.stringify` it in the guest): a Map becomes `{}`, a Date its ISO string,
 * and a BigInt fails the run with the TypeError JSON.stringify throws.
 */
export function executionResult<T>(result: RunResult): ExecutionResult<T> {
  const logs = consoleLines(result.logs)
  if (!result.ok) return { success: false, error: normalizedError(result.error), logs }
  let value: T | undefined
  try {
    const text = JSON.stringify(result.value)
    value = text === undefined ? undefined : (JSON.parse(text) as T)
  } catch (error) {
    const thrown = error as Error
    return { success: false, error: { name: thrown.name, message: thrown.message }, logs }
  }
  return { success: true, value, logs }
}

/** The guest's own name, message and stack for what it threw; for cordon's other ends, a name and cordon's code. */
export function normalizedError(error: RunError): NormalizedError {
  if (error.code === 'RUNTIME_ERROR') {
    return { name: error.name ?? 'Error', message: error.message, ...(error.stack === undefined ? {} : { stack: error.stack }) }
  }
  return { name: error.name ?? NAMES[error.code] ?? 'Error', message: error.message, code: error.code }
}
