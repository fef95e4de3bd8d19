import type { RunEvent, RunEventListener } from '@cordon/core'
import type { CodeModeTransport } from '@mastra/core/tools'

type TransportRun = Parameters<CodeModeTransport['run']>[0]

/** The per-call tracing hooks Mastra gives each run. */
export type CallHooks = Pick<TransportRun, 'onExternalCall' | 'onExternalResult'>

/**
 * The run's `onEvent`: Mastra's hooks from cordon's tool events, after `forward` (the transport's
 * own `onEvent`). Every call the program makes gets `onExternalCall` and then exactly one
 * `onExternalResult`, before the run resolves: calls cordon refused (over `maxToolCalls`) and
 * calls still pending when the run ended (an `Error` saying why it ended) included.
 * `undefined` when there is nothing to call.
 */
export function callHookListener(
  hooks: CallHooks,
  toolIds: ReadonlyMap<string, string>,
  forward?: RunEventListener,
): RunEventListener | undefined {
  const { onExternalCall, onExternalResult } = hooks
  if (onExternalCall === undefined && onExternalResult === undefined) return forward
  const toolId = (name: string) => toolIds.get(name) ?? name
  const notify = (event: RunEvent): void => {
    if (event.type === 'tool-start') onExternalCall?.(toolId(event.tool), event.args)
    else if (event.type === 'tool-end') onExternalResult?.(toolId(event.tool), event.durationMs)
    else if (event.type === 'tool-error') onExternalResult?.(toolId(event.tool), event.durationMs, guestError(event.error))
  }
  if (forward === undefined) return notify
  return (event) => {
    try {
      forward(event)
    } finally {
      notify(event)
    }
  }
}

/** The error the program saw, as an Error with its `name` (and `code`, when the tool's had one). */
function guestError({ name, message, code }: { name: string; message: string; code?: string }): Error {
  const error = new Error(message)
  error.name = name
  return code === undefined ? error : Object.assign(error, { code })
}
