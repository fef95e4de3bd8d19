/**
 * The protocol between a backend and the guest runtime (GUEST_RUNTIME_SOURCE).
 * Every argument crossing it is a primitive (string, number, boolean), so any
 * engine can carry it and no object of one side is ever reachable from the other.
 *
 * Order of use by a backend:
 *   1. evaluate GUEST_RUNTIME_SOURCE in a fresh context → a function;
 *   2. call it with an object implementing RelayFunctions → GuestRuntime
 *      (keep it on the host side: never store it where guest code can read it);
 *   3. runtime.install(request.setup);
 *   4. compile request.script under request.filename → the guest's async main function;
 *   5. runtime.start(main); then deliver settle()/fire() as tool calls and timers
 *      complete, draining the engine's job queue after each, until the relay's done() is called.
 */
export interface RelayFunctions {
  /**
   * Console entries (already capped by the guest at its own limits), packed: each one is its
   * level's initial (`l`, `i`, `w`, `e`, `d`), the message's length in UTF-16 code units, `:`,
   * and the message. With `logArgs`, an entry whose arguments crossed has the initial in upper
   * case and, after the message, the arguments' wire text packed the same way (length, `:`,
   * text). `unpackLogEntries` reads it. The guest batches entries per turn.
   */
  log(entries: string): void
  /**
   * Optional: a function of the guest's realm, made by the backend before any guest code, that
   * keeps one packed entry where the host reads it even if the guest never runs again (isolated-vm:
   * memory shared with the host). False when it has no room. With it, the runtime stores every
   * entry at once and calls `log('')` when the host should read the store (`log` then reads it
   * before its own entries).
   */
  storeLog?(entry: string): boolean
  /** An async tool call. Reply later with runtime.settle(id, …). */
  call(id: number, name: string, argsWire: string): void
  /**
   * Optional, for engines whose host can make and settle a promise of the guest's realm itself
   * (QuickJS): an async tool call that returns that promise. The host settles it with
   * what `runtime.answer` gives (or, for a primitive result, with the value directly), so no per-call
   * record or settle lookup runs as guest code. When present, the runtime never uses `call`.
   */
  callPromise?(name: string, argsWire: string): Promise<unknown>
  /**
   * A sync tool call. Returns a JSON reply:
   * `{"ok":true,"value":<wire>}` or `{"ok":false,"message":"…"}`.
   */
  callSync(name: string, argsWire: string): string
  /** Schedule runtime.fire(id) after delayMs; a negative delay cancels timer `id`. */
  timer(id: number, delayMs: number): void
  /**
   * The run finished. status `ok`: payload is the value in wire format.
   * status `error`: payload is JSON `{ name?, message, stack? }` of what the guest threw.
   * status `limit`: payload is JSON `{ code, message }` (e.g. OUTPUT_LIMIT).
   */
  done(status: 'ok' | 'error' | 'limit', payload: string, logsDropped: number): void
}

export interface GuestRuntime {
  install(setup: string): void
  start(main: () => unknown): void
  /** ok: payload is the result in wire format; not ok: payload is JSON `{ name?, message }`. */
  settle(id: number, ok: boolean, payload: string): void
  /**
   * The answer to a `callPromise` call, in settle's form, for the host to settle its promise
   * with: returns the decoded value, or throws the tool's error (or the decoder's TypeError).
   */
  answer(ok: boolean, payload: string): unknown
  fire(id: number): void
  /**
   * The host found nothing pending that could wake the guest (no tool call, timer or fetch) while
   * the engine's job queue is empty: the program waits for a promise nothing can settle. The run
   * ends DEADLOCK, unless the runtime itself still waits on something the host cannot see.
   */
  stall(): void
  /**
   * Sends the console entries the guest still holds: for a backend that stopped the guest from
   * outside, or, with `pull`, that takes them from the engine's interrupt check while guest code
   * runs (such a call does nothing when it lands inside the console's own work).
   */
  flushLogs(pull?: boolean): void
}

/** The JSON passed to `install`; built by @cordon/core. */
export interface GuestSetup {
  tools: { name: string; sync: boolean }[]
  limits: { maxOutputBytes: number; maxLogEntries: number; maxLogBytes: number }
  /** Each console call's arguments go with its entry as values (the `logArgs` option). */
  logArgs?: boolean
  /** Wire form of the globals object (or null). */
  globals: unknown
  /** The globals' wire holds no tagged value: what JSON.parse made of it is already the value. */
  plainGlobals?: boolean
  /** The run has the `fetch` option: define `fetch`, `Headers`, `Request`, `Response`. */
  fetch?: boolean
  /** Durable runs only: the guest's `Date` starts at `now` and moves with timers; `Math.random` is seeded. */
  clock?: { now: number; seed: number[] }
}
