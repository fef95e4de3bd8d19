import type { RunEvent, RunEventListener } from '@cordon/core'
import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js'

/** Longest progress message; a log entry is already capped by maxLogBytes, a tool's error text is not. */
const MAX_MESSAGE_CHARS = 1_000

export interface RunProgress {
  /** The run's `onEvent`: one `notifications/progress` per log entry and per tool call start and end. */
  onEvent: RunEventListener
  /** Resolves once every notification sent so far has been handed to the transport (so they precede the response). */
  sent(): Promise<void>
}

/**
 * MCP progress for one run_javascript call whose client sent a `progressToken`: the program's
 * console output and tool calls as they happen, `progress` counting up from 1 (no `total`: a
 * program's length is unknown). A notification that cannot be sent (the client went away) is
 * dropped; it never fails the run.
 */
export function runProgress(progressToken: string | number, send: (notification: ServerNotification) => Promise<void>): RunProgress {
  let progress = 0
  const pending: Promise<void>[] = []
  return {
    onEvent(event: RunEvent) {
      const message = progressMessage(event)
      if (message === undefined) return
      progress++
      pending.push(
        // An async wrapper: a send that throws at once is caught like one that rejects.
        (async () => send({ method: 'notifications/progress', params: { progressToken, progress, message } }))().catch(() => {
          // The client is gone or the transport closed: the run's result cannot reach it either.
        }),
      )
    },
    async sent() {
      await Promise.all(pending)
    },
  }
}

/** What a person watching the call reads: console lines as in the result, and one line per tool call start and end. */
export function progressMessage(event: RunEvent): string | undefined {
  let text: string
  switch (event.type) {
    case 'log':
      text = event.level === 'log' || event.level === 'info' ? event.message : `[${event.level}] ${event.message}`
      break
    case 'tool-start':
      text = `calling ${event.tool} (${event.argsBytes} bytes of arguments)`
      break
    case 'tool-end':
      text = `${event.tool} answered in ${Math.round(event.durationMs)} ms (${event.resultBytes} bytes)`
      break
    case 'tool-error':
      text = `${event.tool} failed after ${Math.round(event.durationMs)} ms (${event.reason}): ${event.error.message}`
      break
    case 'result':
      // The result is the response itself.
      return undefined
  }
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text
}
