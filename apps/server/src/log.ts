import type { LogEntry } from './server-options.js'

export type Logger = (level: LogEntry['level'], msg: string, fields?: Record<string, unknown>) => void

/** Structured entries: a time, a level, a message, and fields (a run's id among them). */
export function createLogger(sink: (entry: LogEntry) => void): Logger {
  return (level, msg, fields) => {
    try {
      sink({ time: new Date().toISOString(), level, msg, ...fields })
    } catch {
      // A failing sink must not end a run.
    }
  }
}
