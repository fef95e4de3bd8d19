import type { ErrorCode, RunError, RunResult } from '@cordon/core'
import type { CodeModeToolResult } from '@mastra/core/tools'
import { consoleLines } from './console-lines.js'
import { jsonValue } from './json-values.js'

/** The `error` of a failed CodeModeToolResult. */
export type CodeModeError = NonNullable<CodeModeToolResult['error']>

/**
 * A cordon result as Mastra's CodeModeToolResult. The value is returned as JSON, as Mastra's
 * runner returns it: a Map becomes `{}`, a Date its ISO string, and a BigInt fails the program
 * with the TypeError JSON.stringify throws.
 */
export function codeModeResult(result: RunResult): CodeModeToolResult {
  const logs = consoleLines(result.logs)
  if (!result.ok) return { success: false, error: codeModeError(result.error), logs }
  let value: unknown
  try {
    value = jsonValue(result.value)
  } catch (error) {
    const thrown = error as Error
    return { success: false, error: { name: thrown.name, message: thrown.message }, logs }
  }
  return { success: true, result: value, logs }
}

/**
 * What the guest threw: its message and name (none for a thrown string, as in Mastra) and the
 * line of the model's code it came from. Cordon's other ends get a name made from their code:
 * `TimeoutError`, `MemoryLimitError`, `DeadlockError`, `ToolCallLimitError`…, and `AbortError`.
 */
export function codeModeError(error: RunError): CodeModeError {
  const name = error.name ?? (error.code === 'RUNTIME_ERROR' ? undefined : errorName(error.code))
  return {
    message: error.message,
    ...(name === undefined ? {} : { name }),
    ...(error.line === undefined ? {} : { line: error.line }),
  }
}

/** `TOOL_CALL_LIMIT` → `ToolCallLimitError`; `ABORTED` → `AbortError`, the name an aborted fetch has. */
function errorName(code: ErrorCode): string {
  if (code === 'ABORTED') return 'AbortError'
  const words = code.toLowerCase().split('_')
  if (words.at(-1) === 'error') words.pop()
  return words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('') + 'Error'
}
