/**
 * String splicing by AST offsets. Edits never add or remove a line terminator, so every line of
 * the result is the same line of the input.
 */
import type { Edit } from './positions.js'

const LINE_BREAK = /\r\n?|\n|\u2028|\u2029/g

/**
 * Replaces source[start, end) by `text`, keeping the line terminators inside the range where they
 * are: the range is cut into one edit per line (the first one carries `text`, the others remove).
 */
export function replaceKeepingLines(source: string, start: number, end: number, text: string, out: Edit[]): void {
  let from = start
  let first = true
  LINE_BREAK.lastIndex = start
  for (let m = LINE_BREAK.exec(source); m !== null && m.index < end; m = LINE_BREAK.exec(source)) {
    if (m.index > from || first) out.push({ start: from, end: m.index, text: first ? text : '' })
    first = false
    from = m.index + m[0].length
  }
  if (end > from || first) out.push({ start: from, end, text: first ? text : '' })
}

export function insertAt(offset: number, text: string, out: Edit[]): void {
  out.push({ start: offset, end: offset, text })
}

/** Applies edits (any order; same-start edits keep their relative order) and sorts `edits` in place. */
export function applyEdits(source: string, edits: Edit[]): string {
  edits.sort((a, b) => a.start - b.start)
  let result = ''
  let pos = 0
  for (const e of edits) {
    result += source.slice(pos, e.start) + e.text
    pos = e.end
  }
  return result + source.slice(pos)
}
