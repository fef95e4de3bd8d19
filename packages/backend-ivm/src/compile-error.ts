import type { RunError } from '@cordon/core'

/** isolated-vm appends the position as ` [file:line:column]` to compile errors' messages. */
const POSITION = /\s*\[([^\]\n]*):(\d+):(\d+)\]$/

/**
 * Turns a `compileScript` rejection caused by the guest's code into its RunError:
 * SYNTAX_ERROR for a SyntaxError (line/column in script coordinates; core maps them),
 * RUNTIME_ERROR for anything else the parser throws (e.g. a RangeError on absurd nesting).
 * Returns undefined when the failure is not about the code (e.g. the isolate was disposed).
 */
export function compileError(error: unknown, filename: string): RunError | undefined {
  if (!(error instanceof Error)) return undefined
  const name = error.name
  if (name !== 'SyntaxError' && name !== 'RangeError') return undefined
  let message = error.message
  let line: number | undefined
  let column: number | undefined
  const match = POSITION.exec(message)
  if (match !== null) {
    message = message.slice(0, match.index)
    if (match[1] === filename) {
      line = Number(match[2])
      column = Number(match[3])
    }
  }
  const code = name === 'SyntaxError' ? 'SYNTAX_ERROR' : 'RUNTIME_ERROR'
  const out: RunError = { code, name, message }
  if (line !== undefined) out.line = line
  if (column !== undefined) out.column = column
  return out
}
