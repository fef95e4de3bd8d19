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
      session.onResponse = (callId, message) => {
        const confirmed = confirmations.get(Number(callId))
        if (confirmed !== undefined) {
          confirmations.delete(Number(callId))
          confirmed()
        } else if (attached) onMessage(String(message))
      }
      session.onNotification = (message) => {
        if (attached) onMessage(String(message))
      }
      const dispatch = (message: string): boolean => {
        if (isolate.isDisposed) return false
        try {
          session.dispatchProtocolMessage(message)
          return true
        } catch {
          return false
        }
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
            clearTimeout(timer)
            sessions.delete(open)
            if (isolate.isDisposed) return
            try {
              session.dispose()
            } catch {
              // Disposed already.
            }
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
