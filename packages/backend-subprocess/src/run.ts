/**
 * One run on one child: sends the program, turns the child's messages into ToolBridge
 * calls, and ends the run on `done`, on the deadline or abort (SIGKILL), on the memory
 * watchdog, on any protocol violation, or when the child dies. Every message from the
 * child is treated as hostile: only the exact shapes are accepted, tool names must be the
 * run's, call ids must be fresh, and the message count is bounded by the run's limits
 * (an honest child sends at most one message per log entry and tool call, plus `done`).
 *
 * The child is killed when the run ends, except in a session when the run ended by itself —
 * `done` (a value, a thrown error, a guest-side limit) or a syntax error: the guest then sits
 * between two jobs and its context can serve the next run. Any other end (a stop from
 * outside, a child-side limit, a violation) kills it. In a session, a guest may keep a tool
 * function of an earlier run and call it later: a call of a tool granted to an earlier run
 * but not to this one goes to core, which refuses it (and counts it) as for any backend; a
 * name the session never granted is still a violation.
 */

export interface SessionRun {
  /** Tool names granted to earlier runs of the session. */
  formerTools: ReadonlySet<string>
}
import type { ErrorCode } from '@cordon/core'
import {
  maxLogBatchChars,
  outcomeFromDone,
  stopError,
  syncToolReply,
  toolErrorPayload,
  unpackLogEntries,
  watchStop,
  type ExecuteOutcome,
  type ExecuteRequest,
} from '@cordon/core/backend'
import { outcomeForExit } from './exit-outcome.js'
import type { GuestChild } from './guest-child.js'
import { frameCapBytes } from './memory-budget.js'
import { watchMemory } from './memory-watchdog.js'
import { SYNC_REPLY, type ChildMessage, type RunMessage } from './messages.js'

const MESSAGE_SLACK = 8
/** After a stop, how long the child's pipe may take to close before the run ends anyway. */
const DRAIN_MS = 250

export function runOnChild(
  child: GuestChild,
  request: ExecuteRequest,
  memoryCheckMs: number,
  session?: SessionRun,
): Promise<ExecuteOutcome> {
  const { limits } = request
  const toolNames = new Set(request.tools.map((tool) => tool.name))
  const syncToolNames = new Set(request.tools.filter((tool) => tool.sync).map((tool) => tool.name))
  const callIds = new Set<number>()
  const maxMessages = limits.maxLogEntries + limits.maxToolCalls + MESSAGE_SLACK
  let messages = 0
  let finished = false

  return new Promise<ExecuteOutcome>((resolve) => {
    const cleanups: (() => void)[] = []
    const finish = (outcome: ExecuteOutcome, endedByItself = false) => {
      if (finished) return
      finished = true
      for (const cleanup of cleanups) cleanup()
      child.detach()
      if (!(session !== undefined && endedByItself)) child.kill()
      resolve(outcome)
    }
    const fail = (code: ErrorCode, message: string) => finish(stopping ?? { ok: false, error: { code, message } })
    // Stopped from outside: kill the child, but read what is already in its pipe before
    // reporting. Under load the deadline timer can fire before the host read a log the guest
    // wrote long before the deadline; only logs are accepted while draining.
    let stopping: ExecuteOutcome | undefined
    const stopAndDrain = (outcome: ExecuteOutcome) => {
      if (finished || stopping !== undefined) return
      stopping = outcome
      child.kill()
      const drainTimer = setTimeout(() => finish(outcome), DRAIN_MS)
      cleanups.push(() => clearTimeout(drainTimer))
    }
    // The request's signal aborts at the deadline too: the one stop watcher of the run.
    cleanups.push(watchStop(request, (error) => stopAndDrain({ ok: false, error })))
    // Like a stop from outside, the watchdog reads the child's pipe before reporting: on a loaded
    // host its sample can come before the host read what the guest logged first.
    cleanups.push(
      watchMemory(child, request.script.length, memoryCheckMs, (message) =>
        stopAndDrain({ ok: false, error: { code: 'MEMORY_LIMIT', message } }),
      ),
    )

    const onMessage = (message: ChildMessage) => {
      if (finished) return
      if (++messages > maxMessages) return violation('more messages than the run limits allow')
      if (stopping !== undefined) {
        if (message.kind === 'log') logEntries(message.entries)
        return
      }
      switch (message.kind) {
        case 'log':
          return logEntries(message.entries)
        case 'call':
          return call(message.id, message.name, message.args)
        case 'call-sync':
          if (!syncToolNames.has(message.name))
            return violation(`synchronous call of ${JSON.stringify(message.name.slice(0, 80))}, not a synchronous tool`)
          // The child is blocked until this reply: nothing else of the run moves meanwhile.
          return child.send([SYNC_REPLY, syncToolReply(request.host, message.name, message.args)])
        case 'done': {
          const outcome = outcomeFromDone(message)
          outcome.stats = { ...outcome.stats, cpuMs: message.cpuMs, heapBytes: message.heapBytes }
          return finish(outcome, true)
        }
        case 'syntax': {
          const { name, message: text, line, column } = message
          return finish({ ok: false, error: { code: 'SYNTAX_ERROR', name, message: text, line, column } }, true)
        }
        case 'limit':
          // The child's own deadline check (its vm timeout) reports in the run's one wording.
          if (message.code === 'TIMEOUT') return finish(stopping ?? { ok: false, error: stopError(request) })
          return fail(message.code, message.message)
        case 'fail':
          return fail('BACKEND_CRASHED', `the child failed: ${message.message}`)
        default:
          return violation(`unexpected ${message.kind} message during a run`)
      }
    }
    const violation = (reason: string) => fail('BACKEND_CRASHED', `the child broke the protocol (${reason}) and was killed`)
    const logEntries = (entries: string) => {
      if (!unpackLogEntries(entries, (level, text, args) => request.host.log(level, text, args))) violation('malformed log entries')
    }

    const call = (id: number, name: string, args: string) => {
      if (!toolNames.has(name) && session?.formerTools.has(name) !== true)
        return violation(`call of unknown tool ${JSON.stringify(name.slice(0, 80))}`)
      if (callIds.has(id)) return violation(`tool call id ${id} reused`)
      callIds.add(id)
      request.host.callTool(name, args).then(
        (value) => {
          if (!finished) child.send(['settle', id, true, value])
        },
        (error: unknown) => {
          if (!finished) child.send(['settle', id, false, toolErrorPayload(error)])
        },
      )
    }

    child.attach(
      {
        message: onMessage,
        violation,
        exit: (code, signal) => finish(stopping ?? outcomeForExit(code, signal, child.stderrTail(), child.memoryMb)),
      },
      frameCapBytes(limits.maxOutputBytes, maxLogBatchChars(limits.maxLogBytes)),
    )
    if (!child.alive) return finish(outcomeForExit(null, null, child.stderrTail(), child.memoryMb))
    const job: RunMessage = {
      setup: request.setup,
      script: request.script,
      filename: request.filename,
      deadline: request.deadline,
      memoryBytes: limits.memoryMb * 1024 * 1024,
      maxErrorChars: limits.maxOutputBytes,
    }
    child.send(['run', job])
  })
}
