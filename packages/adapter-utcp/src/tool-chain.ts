import {
  isSandboxError,
  type RunError,
  type RunFailure,
  type RunInterrupted,
  type RunResult,
  type Sandbox,
  type ToolSet,
} from '@cordon/core'
import { timeoutError } from '@cordon/core/backend'

/** How a tool call ended on the host: the value the guest's call returns, or the message of the Error it throws. */
export type CallAnswer = { answer: unknown } | { reject: string }

export interface ToolChainRequest {
  sandbox: Sandbox
  code: string
  /** Synchronous tools that pause the run (see guest-tools.ts). */
  tools: ToolSet
  globals: Record<string, unknown>
  timeoutMs: number
  /** The run's memory cap; the sandbox's default when undefined. */
  memoryMb?: number
  /** Calls on the host the tool the guest called (by its cordon name); resolves, never rejects. */
  call(tool: string, args: unknown): Promise<CallAnswer>
}

/** The longest delay a timer honours; past it, cordon refuses the timeout itself. */
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * Runs a program whose tool calls are synchronous in the guest but asynchronous on the host. Each
 * call pauses the run (a cordon durable run: the guest stops at once); the tool is called here and
 * `resume` runs the program again from its start, with every call made so far answered from the
 * continuation's ledger without calling the tool again, the paused call answered, and the program
 * going on live to its next call or its end. Date and Math.random replay identically, so the
 * program takes the same path each time.
 *
 * One deadline, `timeoutMs`, covers the whole chain (the guest's runs and replays, and the time
 * spent in tools); cordon's own `timeoutMs` bounds the guest's share of it.
 */
export async function runToolChain(request: ToolChainRequest): Promise<RunResult> {
  const { sandbox, timeoutMs } = request
  const deadline = new AbortController()
  const timer = timeoutMs >= 0 && timeoutMs <= MAX_TIMER_MS ? setTimeout(() => deadline.abort(), timeoutMs) : undefined
  const expired = new Promise<'expired'>((resolve) => deadline.signal.addEventListener('abort', () => resolve('expired'), { once: true }))
  const shared = { tools: request.tools, globals: request.globals, signal: deadline.signal, logArgs: true }
  try {
    let result: RunResult = await sandbox.run(request.code, {
      ...shared,
      timeoutMs,
      ...(request.memoryMb === undefined ? {} : { memoryMb: request.memoryMb }),
    })
    while (!result.ok && result.interrupted) {
      const paused: RunInterrupted = result
      const answer = await Promise.race([request.call(paused.interrupt.tool, paused.interrupt.args), expired])
      if (answer === 'expired') return failure(paused, timeoutError(timeoutMs))
      try {
        result = await sandbox.resume(paused.continuation, { ...shared, ...answer })
      } catch (error) {
        // Refused (an answer cordon cannot carry, a sandbox disposed meanwhile): the chain ends here.
        if (!isSandboxError(error)) throw error
        return failure(paused, { code: error.code, message: error.message })
      }
    }
    // Our deadline stops the run through its signal, which cordon reports as ABORTED.
    if (!result.ok && result.error.code === 'ABORTED' && deadline.signal.aborted) return failure(result, timeoutError(timeoutMs))
    return result
  } finally {
    clearTimeout(timer)
  }
}

function failure(result: RunResult, error: RunError): RunFailure {
  return { ok: false, error, logs: result.logs, stats: result.stats }
}
