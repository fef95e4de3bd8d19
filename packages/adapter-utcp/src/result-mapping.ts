import type { RunError, RunResult } from '@cordon/core'
import { consoleLines } from './console-lines.js'

/**
 * What `callToolChain` resolves: the program's value as JSON (`null` when it failed or returned
 * nothing) and its console lines, the last one saying why when it failed.
 */
// `any` by default, as UTCP's own client types `result`: code written for it compiles unchanged.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface ToolChainResult<T = any> {
  result: T | null
  logs: string[]
}

/** The line UTCP's client adds to the logs of a chain that failed; the reason follows it. */
export const FAILURE_PREFIX = '[ERROR] Code execution failed: '

/**
 * A cordon result as UTCP's `{ result, logs }`. The value crosses as JSON, as UTCP's client
 * returns it (it `JSON.stringify`s it in the guest): `undefined` becomes `null`, a Map `{}`, a
 * Date its ISO string, and a BigInt fails the chain with the TypeError JSON.stringify throws.
 */
export function toolChainResult<T>(result: RunResult): ToolChainResult<T> {
  const logs = consoleLines(result.logs)
  if (!result.ok) return failedChain(logs, describeRunError(result.error))
  try {
    const text = JSON.stringify(result.value === undefined ? null : result.value)
    return { result: text === undefined ? null : (JSON.parse(text) as T), logs }
  } catch (error) {
    return failedChain(logs, describeThrown(error))
  }
}

/** A failed chain: no value, and the reason as the last log line. */
export function failedChain<T>(logs: string[], reason: string): ToolChainResult<T> {
  return { result: null, logs: [...logs, FAILURE_PREFIX + reason] }
}

/**
 * Why a run failed, in one line: `Name: message` for what the guest threw (as `String(error)`
 * gives it), cordon's code before the message for every other end (`TIMEOUT: …`), and where in
 * the program it happened when cordon knows.
 */
export function describeRunError(error: RunError): string {
  const guestError = error.code === 'RUNTIME_ERROR' || error.code === 'SYNTAX_ERROR'
  const name = guestError ? error.name : error.code
  const head = name === undefined ? error.message : `${name}: ${error.message}`
  if (error.line === undefined) return head
  return `${head} (line ${error.line}${error.column === undefined ? '' : `, column ${error.column}`})`
}

/** A host-side exception (cordon refusing the options, a backend that cannot load) in the same form. */
export function describeThrown(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code
    return `${typeof code === 'string' ? code : error.name}: ${error.message}`
  }
  return String(error)
}
