/**
 * How a backend whose `capabilities.inspector` is true lets core reach the guest's engine over
 * the Chrome DevTools Protocol, for the run's debugger (`RunOptions.inspector`) and CPU profile
 * (`RunOptions.cpuProfile`). The backend owns the engine's inspector session; core owns the
 * debugger's WebSocket, the profile and the policy (when the program may start, what is hidden).
 */

/** The guest's engine as an inspector target: each debugger (and the profile) gets a session. */
export interface EngineInspector {
  /** Opens a session; `onMessage` gets every message the engine sends on it (JSON text), in order. */
  connect(onMessage: (message: string) => void): EngineInspectorSession
}

/** The engine's end of one inspector session. */
export interface EngineInspectorSession {
  /** Hands one CDP message (JSON text, from a debugger or from core) to the engine. */
  dispatch(message: string): void
  /** Ends the session (a debugger paused on it lets the guest go on). Idempotent. */
  disconnect(): void
}

/**
 * Backends name the scripts they compile for themselves (their guest runtime) with this prefix:
 * a debugger's stepping and pauses skip them.
 */
export const RUNTIME_SCRIPT_PREFIX = 'cordon-'

/**
 * Given to `execute` in `ExecuteRequest.inspector`. The backend calls, in order: `attach` once the
 * guest's context exists and before its program is compiled; `beforeStart` after compiling and
 * before calling the program; `beforeEnd` after the guest's result (or a stop), before the
 * session and the engine go. A backend that stops the run from outside (deadline, abort) may
 * skip `beforeEnd` (the run then has no CPU profile) or call it with the guest still running and
 * wait a short, bounded while (isolated-vm: 200 ms); it never waits on `beforeStart` beyond the
 * run's own stop.
 */
export interface InspectorHooks {
  /** The guest's context exists: core may open sessions on its engine from now until the run ends. */
  attach(engine: EngineInspector): void
  /**
   * Resolves when the program may start: at once, or once a debugger asked for it (the run's
   * `inspector.waitForDebugger`). Never rejects; a stop of the run ends the wait (resolves).
   */
  beforeStart(): Promise<void>
  /** Resolves once core has taken what it needs from the engine (the CPU profile). Never rejects; bounded. */
  beforeEnd(): Promise<void>
}
