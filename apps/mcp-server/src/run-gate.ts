/**
 * Admission for run_javascript calls: at most `limit` in flight through one gate. Over HTTP
 * each MCP session (a client) gets its own gate, so one busy client cannot take every run a
 * process can do; in stateless mode there is no session to key on and one gate covers the
 * process. Over stdio there is one client and no gate.
 */
export interface RunGate {
  readonly limit: number
  /** A release function when a run may start now, undefined when `limit` are in flight. */
  tryEnter(): (() => void) | undefined
}

export function createRunGate(limit: number): RunGate {
  let inFlight = 0
  return {
    limit,
    tryEnter() {
      if (inFlight >= limit) return undefined
      inFlight++
      let released = false
      return () => {
        if (released) return
        released = true
        inFlight--
      }
    },
  }
}
