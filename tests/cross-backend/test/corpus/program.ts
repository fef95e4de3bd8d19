import type { ToolSet } from '@cordon/core'

/** One program of the differential corpus: what an agent might send to `run`, as data. */
export interface Program {
  name: string
  code: string
  tools?: ToolSet
  globals?: Record<string, unknown>
  /**
   * The program fails with an error the engine raises itself, whose wording is the engine's own
   * (V8 and QuickJS differ): its message is left out of the comparison; code, name, line stay.
   */
  engineMessage?: true
  /** What every backend must produce, where it is obvious; the backends must agree either way. */
  expect?: Expectation
}

export interface Expectation {
  value?: unknown
  /** Log messages in order (levels are checked by the programs that care, through `logLevels`). */
  logs?: string[]
  logLevels?: string[]
  error?: { code: string; name?: string; message?: string; line?: number }
}
