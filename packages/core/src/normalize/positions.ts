/**
 * Positions: line/column bookkeeping between the user's code, the function body and `script`.
 *
 * Lines never move: every rewrite keeps each line terminator in place, so a line of `script` is
 * a line of the user's code shifted by a constant (`lineDelta`). Columns move only on lines where
 * text was inserted or removed (`return (`, a dropped `export`); those edits are remembered in a
 * side table keyed by the program object so `toUserPosition` can undo them. A program that lost
 * its identity (cloned, serialised) still maps lines exactly and columns approximately. For
 * TypeScript, columns are those of the type-stripped code (sucrase keeps lines, not columns).
 */
import type { NormalizedProgram } from './types.js'

/** One replacement made in the wrapped source: [start, end) became `text`. Never spans a line break. */
export interface Edit {
  start: number
  end: number
  text: string
}

interface ProgramRecord {
  /** Sorted, non-overlapping edits, in coordinates of the source before editing. */
  edits: readonly Edit[]
  /** The text the program was parsed from: the user's code without its fence, a shebang emptied. */
  body: string
  lineStarts?: number[]
}

const records = new WeakMap<NormalizedProgram, ProgramRecord>()

export function rememberProgram(program: NormalizedProgram, edits: readonly Edit[], body: string): void {
  records.set(program, { edits, body })
}

/**
 * The text `program` was parsed from, for whoever maps positions further (the debugger's source
 * map); undefined for a program that lost its identity (cloned, serialised).
 */
export function bodyOf(program: NormalizedProgram): string | undefined {
  return records.get(program)?.body
}

/** The ECMAScript line terminators, as acorn and V8 count them. */
const LINE_BREAK = /\r\n?|\n|\u2028|\u2029/g

export function lineStartsOf(text: string): number[] {
  const starts = [0]
  LINE_BREAK.lastIndex = 0
  for (let m = LINE_BREAK.exec(text); m !== null; m = LINE_BREAK.exec(text)) starts.push(m.index + m[0].length)
  return starts
}

/**
 * Source offset of an edited-text offset; offsets inside inserted text map to the edit's start.
 * `lineStart`: the offset starts a line, so text removed right there belongs to this line (map to
 * the start of the removed text, not past it).
 */
function toSourceOffset(edits: readonly Edit[], offset: number, lineStart = false): number {
  let delta = 0
  for (const e of edits) {
    const outStart = e.start + delta
    if (offset < outStart) break
    if (offset < outStart + e.text.length || (lineStart && offset === outStart)) return e.start
    delta += e.text.length - (e.end - e.start)
  }
  return offset - delta
}

/**
 * Maps a (line, column) of `script` — both 1-based, as in V8 stack traces — back to the user's
 * code. Undefined when the line belongs to the wrapper (the first line and the last line).
 */
export function toUserPosition(program: NormalizedProgram, line: number, column?: number): { line: number; column?: number } | undefined {
  if (!Number.isInteger(line)) return undefined
  const record = records.get(program)
  const lineStarts = record?.lineStarts ?? lineStartsOf(program.script)
  if (record !== undefined) record.lineStarts = lineStarts
  // Line 1 is `(async function () {`, the last line holds the closing `})`.
  if (line < 2 || line > lineStarts.length - 1) return undefined
  const userLine = line - program.lineDelta
  if (column === undefined || !Number.isFinite(column)) return { line: userLine }
  if (record === undefined) return { line: userLine, column }
  const start = lineStarts[line - 1]!
  const end = lineStarts[line]!
  const offset = Math.min(start + Math.max(column, 1) - 1, end)
  return {
    line: userLine,
    column: toSourceOffset(record.edits, offset) - toSourceOffset(record.edits, start, true) + 1,
  }
}
