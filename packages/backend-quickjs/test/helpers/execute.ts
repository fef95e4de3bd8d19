import { resolveLimits, type Limits } from '@cordon/core'
import { GUEST_FILENAME, RunStop, decodeValue, encodeValue, type ExecuteOutcome, type SandboxBackend } from '@cordon/core/backend'

export interface DirectOptions extends Partial<Limits> {
  /** Async tools by dotted name. */
  tools?: Record<string, (args: unknown) => unknown>
  /** Sync tools by dotted name. */
  syncTools?: Record<string, (args: unknown) => unknown>
  signal?: AbortSignal
}

export interface DirectRun {
  outcome: ExecuteOutcome
  logs: string[]
  elapsedMs: number
}

/** A backend, or one of its sessions: whatever runs an ExecuteRequest. */
export type Executor = Pick<SandboxBackend, 'execute'>

/**
 * Drives `backend.execute` (or a session's) without @cordon/core's sandbox, so a test sees exactly
 * what the backend reports (core would, e.g., replace the error of a run its own deadline stopped).
 * `body` is the inside of the guest's async main function, in script coordinates from line 2.
 */
export async function executeDirect(backend: Executor, body: string, options: DirectOptions = {}): Promise<DirectRun> {
  const { tools = {}, syncTools = {}, signal, ...limitOptions } = options
  const limits = resolveLimits(limitOptions)
  const descriptors = [
    ...Object.keys(tools).map((name) => ({ name, sync: false })),
    ...Object.keys(syncTools).map((name) => ({ name, sync: true })),
  ]
  const setup = JSON.stringify({
    tools: descriptors,
    limits: { maxOutputBytes: limits.maxOutputBytes, maxLogEntries: limits.maxLogEntries, maxLogBytes: limits.maxLogBytes },
    globals: null,
  })
  const logs: string[] = []
  const started = performance.now()
  // What core would do: one stop watcher whose signal aborts at the deadline or on `signal`.
  const stop = new RunStop(limits.timeoutMs, signal)
  try {
    const outcome = await backend.execute({
      script: `(async function () {\n${body}\n})`,
      filename: GUEST_FILENAME,
      setup,
      tools: descriptors,
      limits,
      deadline: stop.deadline,
      signal: stop.signal,
      host: {
        log: (level, message) => void logs.push(`${level}: ${message}`),
        callTool: async (name, argsWire) => encodeValue(await tools[name]?.(decodeValue(argsWire)), 1 << 24, 'result'),
        callToolSync: (name, argsWire) => encodeValue(syncTools[name]?.(decodeValue(argsWire)), 1 << 24, 'result'),
      },
    })
    return { outcome, logs, elapsedMs: performance.now() - started }
  } finally {
    stop.finish()
  }
}

/** The outcome's value decoded, or a thrown description of the failure. */
export function valueOf(run: DirectRun): unknown {
  if (!run.outcome.ok) throw new Error(`expected a value, got ${run.outcome.error.code}: ${run.outcome.error.message}`)
  return decodeValue(run.outcome.value)
}

/** The outcome's error code, or 'ok'. */
export function codeOf(run: DirectRun): string {
  return run.outcome.ok ? 'ok' : run.outcome.error.code
}
