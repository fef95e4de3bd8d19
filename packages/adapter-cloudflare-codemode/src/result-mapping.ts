import { isSandboxError, type RunError, type RunResult } from '@cordon/core'
import { consoleLines } from './console-lines.js'
import type { ExecuteResult } from './executor-contract.js'

/**
 * A cordon result as Cloudflare's ExecuteResult: the value as the value model carries it (binary
 * data, dates, maps intact), or the error as one line for the model; the console lines either way.
 */
export function executeResult(result: RunResult): ExecuteResult {
  const logs = consoleLines(result.logs)
  if (result.ok) return { result: result.value, logs }
  return { result: undefined, error: errorText(result.error), logs }
}

/**
 * What the guest threw as Cloudflare's executors report it (its message; here with its name in
 * front when that is not plain `Error`); cordon's other ends as a sentence that keeps cordon's code.
 * Never empty: `createCodeTool` treats an empty error as success.
 */
export function errorText(error: RunError): string {
  switch (error.code) {
    case 'RUNTIME_ERROR':
      return thrownText(error.name, error.message)
    case 'SYNTAX_ERROR': {
      const at = error.line === undefined ? '' : ` (line ${error.line}${error.column === undefined ? '' : `, column ${error.column}`})`
      return thrownText(error.name ?? 'SyntaxError', error.message) + at
    }
    case 'TIMEOUT':
      return `Execution timed out: ${error.message}`
    case 'ABORTED':
      return `Execution aborted: ${error.message}`
    default:
      return `${error.message} (${error.code})`
  }
}

function thrownText(name: string | undefined, message: string): string {
  if (name === undefined || name === 'Error') return message || 'Error'
  return message ? `${name}: ${message}` : name
}

/** What `run` threw (a sandbox disposed, options it refused) as an error text: an executor never throws. */
export function hostErrorText(error: unknown): string {
  if (isSandboxError(error)) return `${error.message} (${error.code})`
  return error instanceof Error ? error.message || error.name : String(error)
}
