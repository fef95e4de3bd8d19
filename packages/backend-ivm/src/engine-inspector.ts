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
 *
 * And V8's CPU profiler samples the thread that started it, while isolated-vm runs an isolate's
 * tasks on whichever thread of its pool is free (the last one unless another isolate's work holds
 * it). A `Profiler.start` taken in a task of its own, and the run started in the next one on
 * another thread, gave profiles without the guest's samples, with other isolates' frames, and a
 * host killed by SIGPROF or SIGSEGV. So until the run's first call into the isolate is queued,
 * `Profiler.start` is answered here and held, then sent: it runs in that call's stretch, on its
 * thread (isolated-vm takes a running isolate's inspector messages between two steps of its code,
 * and an idle one's before its queued calls).
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

/** A run's inspector target; told when the run's first call into the isolate is queued. */
export interface RunEngineInspector extends EngineInspector {
  runStartQueued(): void
}

/**
 * An isolate made with `inspector: true` as core's inspector target: each session is one of
 * isolated-vm's, whose messages arrive on the host's thread.
 */
export function isolateInspector(isolate: IvmIsolate): RunEngineInspector {
  // `Profiler.start`s waiting for the run's first call (see above).
  let runQueued = false
  const heldStarts = new Set<() => void>()
  return {
    runStartQueued() {
      runQueued = true
      for (const send of heldStarts) send()
      heldStarts.clear()
    },
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
      let heldStart: (() => void) | undefined
      /** Answers a `Profiler.start` sent before the run's first call and holds it until then. */
      const heldUntilRun = (message: string): boolean => {
        if (runQueued) return false
        const command = parseCommand(message)
        if (command?.method !== 'Profiler.start') return false
        queueMicrotask(() => {
          if (attached) onMessage(JSON.stringify({ id: command.id, result: {} }))
        })
        // Sent again under an id of this module's: the engine's answer then reaches nobody.
        if (heldStart !== undefined) return true
        heldStart = () => {
          if (!attached) return
          guardLateSamples()
          dispatch(JSON.stringify({ ...command, id: nextId++ }))
        }
        heldStarts.add(heldStart)
        return true
      }
      return {
        dispatch(message) {
          if (attached && !heldUntilRun(message)) dispatch(message)
        },
        disconnect() {
          if (heldStart !== undefined) heldStarts.delete(heldStart)
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

let lateSamplesGuarded = false

/**
 * V8's sampler signals its thread with SIGPROF and puts back the handler it found when the last
 * profile stops. A profile stopped in a task on another thread than the one it samples (the
 * isolate idle when the run ended, its thread then busy with another isolate's work) can leave a
 * signal on the way: with Node's default handler in place, it ends the process. A listener makes
 * the handler found (and put back) libuv's, which lets such a signal pass.
 */
function guardLateSamples(): void {
  if (lateSamplesGuarded || typeof process === 'undefined' || typeof process.on !== 'function') return
  lateSamplesGuarded = true
  try {
    process.on('SIGPROF', () => undefined)
  } catch {
    // A runtime without the signal: nothing to guard.
  }
}

/** A message as an object with its method, when it is one (a command or a notification). */
function parseCommand(message: string): ({ id?: unknown; method: string } & Record<string, unknown>) | undefined {
  try {
    const parsed: unknown = JSON.parse(message)
    if (typeof parsed !== 'object' || parsed === null) return undefined
    return typeof (parsed as { method?: unknown }).method === 'string' ? (parsed as { method: string }) : undefined
  } catch {
    return undefined
  }
}

/** The id of a command (a message with a numeric id), as the engine will answer it. */
function commandId(message: string): number | undefined {
  const id = parseCommand(message)?.id
  return typeof id === 'number' ? id : undefined
}
