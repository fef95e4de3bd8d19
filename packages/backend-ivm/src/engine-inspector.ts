import type { EngineInspector } from '@cordon/core/backend'
import type { IvmIsolate } from './ivm-types.js'

/**
 * isolated-vm 5 hangs or aborts the process unless inspector sessions end in one order:
 * - a session still connected when its isolate is torn down deadlocks the isolate's thread
 *   (the agent's destructor takes its session lock twice), and the process with it;
 * - a session used or disposed after its isolate was disposed fails an assertion (abort);
 * - a disposed session the engine still reports to (a paused guest resuming, a script parsed)
 *   calls into a freed channel ("pure virtual method called", abort).
 * So a session ends quiet first (every domain that reports disabled, confirmed by the engine,
 * which also resumes a paused guest), then is disposed, and only then may its isolate go.
 *
 * And isolated-vm can lose a message: one dispatched just as the guest pauses (after the engine
 * reported the pause, before its pause loop waits) or while that loop is between two waits
 * becomes an interrupt nobody takes, and the debugger waits for its answer forever (seen: a
 * `Debugger.resume` sent 1 ms after `Debugger.paused`). Any later message wakes the loop and it
 * takes every queued one, so while a message is unanswered the session sends a no-op of its own
 * every few milliseconds; and it is disposed only once every message it sent has its answer.
 */
interface OpenSession {
  /** Quiets and disposes the session; resolves when done (at once if the isolate is gone). */
  close(): Promise<void>
}

const sessionsOf = new WeakMap<IvmIsolate, Set<OpenSession>>()
/** Domains that send notifications on their own; disabling one resumes a paused guest (Debugger). */
const REPORTING_DOMAINS = ['Debugger', 'Runtime', 'Profiler', 'HeapProfiler', 'Console']
/** Ids of this module's own commands, above any a client uses. */
const OWN_IDS_FROM = 2_000_000_000
/** Bound on the engine's confirmations: they come within a turn of the guest's interrupt checks. */
const QUIET_WAIT_MS = 5_000
/** How long a command may go unanswered before the session nudges the engine (see above). */
const NUDGE_EVERY_MS = 20
/** A command every engine answers at once, paused or not, with no effect. */
const NUDGE = 'Runtime.getIsolateId'

/**
 * An isolate made with `inspector: true` as core's inspector target: each session is one of
 * isolated-vm's, whose messages arrive on the host's thread.
 */
export function isolateInspector(isolate: IvmIsolate): EngineInspector {
  return {
    connect(onMessage) {
      if (isolate.isDisposed) return { dispatch: () => undefined, disconnect: () => undefined }
      const session = isolate.createInspectorSession()
      const sessions = sessionsOf.get(isolate) ?? new Set()
      sessionsOf.set(isolate, sessions)
      let attached = true
      let nextId = OWN_IDS_FROM
      const confirmations = new Map<number, () => void>()
      // Every message sent that has not been answered yet, the nudges included: while there are
      // any the engine is nudged, and the session is disposed only once there are none (an answer
      // to a disposed session calls a freed channel: "pure virtual method called").
      const unanswered = new Set<number>()
      const settled = new Set<() => void>()
      let nudging: ReturnType<typeof setInterval> | undefined
      const answered = (callId: number) => {
        unanswered.delete(callId)
        if (unanswered.size > 0) return
        if (nudging !== undefined) clearInterval(nudging)
        nudging = undefined
        for (const wake of settled) wake()
        settled.clear()
      }
      /** The session or its isolate is gone: nothing will answer (stops the nudges). */
      const forgetPending = () => {
        for (const pending of [...unanswered]) answered(pending)
      }
      const allAnswered = () => new Promise<void>((resolve) => (unanswered.size === 0 ? resolve() : settled.add(resolve)))
      session.onResponse = (callId, message) => {
        const id = Number(callId)
        answered(id)
        const confirmed = confirmations.get(id)
        if (confirmed !== undefined) {
          confirmations.delete(id)
          confirmed()
        } else if (attached && id < OWN_IDS_FROM) onMessage(String(message))
      }
      session.onNotification = (message) => {
        if (attached) onMessage(String(message))
      }
      const send = (message: string): boolean => {
        if (isolate.isDisposed) return false
        try {
          session.dispatchProtocolMessage(message)
          return true
        } catch {
          return false
        }
      }
      const dispatch = (message: string): boolean => {
        const id = commandId(message)
        if (!send(message)) {
          forgetPending()
          return false
        }
        if (id !== undefined) {
          unanswered.add(id)
          nudging ??= setInterval(() => dispatch(JSON.stringify({ id: nextId++, method: NUDGE })), NUDGE_EVERY_MS)
        }
        return true
      }
      const confirmed = (method: string) =>
        new Promise<void>((resolve) => {
          const id = nextId++
          confirmations.set(id, resolve)
          if (!dispatch(JSON.stringify({ id, method }))) resolve()
        })
      let closing: Promise<void> | undefined
      const open: OpenSession = {
        close() {
          attached = false
          closing ??= (async () => {
            let timer: ReturnType<typeof setTimeout> | undefined
            const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, QUIET_WAIT_MS)))
            await Promise.race([Promise.all(REPORTING_DOMAINS.map((domain) => confirmed(`${domain}.disable`))), late])
            // Then every answer still on its way (a command of core's, a nudge) must have arrived.
            await Promise.race([allAnswered(), late])
            clearTimeout(timer)
            sessions.delete(open)
            try {
              if (!isolate.isDisposed) session.dispose()
            } catch {
              // Disposed already.
            }
            forgetPending()
          })()
          return closing
        },
      }
      sessions.add(open)
      return {
        dispatch(message) {
          if (attached) dispatch(message)
        },
        disconnect() {
          void open.close()
        },
      }
    },
  }
}

/**
 * Ends the isolate's inspector sessions in the order isolated-vm needs (see above). Undefined when
 * it has none: the isolate may be disposed at once; else once the promise resolves (a few ms).
 */
export function closeInspectorSessions(isolate: IvmIsolate): Promise<void> | undefined {
  const sessions = sessionsOf.get(isolate)
  if (sessions === undefined || sessions.size === 0) return undefined
  return Promise.all([...sessions].map((session) => session.close())).then(() => undefined)
}

/** The id of a command (a message with a numeric id), as the engine will answer it. */
function commandId(message: string): number | undefined {
  try {
    const parsed: unknown = JSON.parse(message)
    const id = typeof parsed === 'object' && parsed !== null ? (parsed as { id?: unknown }).id : undefined
    return typeof id === 'number' ? id : undefined
  } catch {
    return undefined
  }
}
