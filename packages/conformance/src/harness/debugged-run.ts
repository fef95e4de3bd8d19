/**
 * Runs with the debugger on, for the inspector checks: started so that the check gets the
 * socket's address while the run still goes, and a CDP client that is always closed.
 */
import type { InspectorEndpoint, InspectorOptions, RunOptions, Sandbox, Session } from '@cordon/core'
import { within } from '../runner.js'
import { connectDebugger, type DebuggerClient } from './cdp-client.js'
import { timedRun, type TimedResult } from './run.js'
import { timedSessionRun } from './session-run.js'

export interface DebuggedRun {
  endpoint: InspectorEndpoint
  run: Promise<TimedResult>
}

/** Starts a run of `sandbox` with the debugger on; resolves once its socket listens. */
export function startDebugged(sandbox: Sandbox, code: string, options: RunOptions & { inspector: InspectorOptions }): Promise<DebuggedRun> {
  return listening(options.inspector, (inspector) => timedRun(sandbox, code, { ...options, inspector }, 30_000))
}

/** `startDebugged` for a run of `session`. */
export function startDebuggedInSession(
  session: Session,
  code: string,
  options: { inspector: InspectorOptions; timeoutMs: number },
): Promise<DebuggedRun> {
  return listening(options.inspector, (inspector) => timedSessionRun(session, code, { ...options, inspector }, 30_000))
}

async function listening(options: InspectorOptions, start: (inspector: InspectorOptions) => Promise<TimedResult>): Promise<DebuggedRun> {
  let listened!: (endpoint: InspectorEndpoint) => void
  const endpoint = new Promise<InspectorEndpoint>((resolve) => (listened = resolve))
  const run = start({ ...options, onListening: listened })
  const first = await within(Promise.race([endpoint, run.then(() => undefined)]), 20_000, 'the inspector did not start listening')
  if (first === undefined) {
    const { result } = await run
    throw new Error(`the run ended before its inspector listened: ${JSON.stringify(result.ok ? result.value : result.error)}`)
  }
  return { endpoint: first, run }
}

/** Connects a CDP client to `endpoint` for `use`, and closes it whatever happens. */
export async function withClient<T>(endpoint: InspectorEndpoint, use: (client: DebuggerClient) => Promise<T>): Promise<T> {
  const client = await connectDebugger(endpoint.webSocketUrl)
  try {
    return await use(client)
  } finally {
    await client.close()
  }
}
