/**
 * The source line an error points at, with a caret under its column:
 *
 *     3 | const y = obj.x.y
 *       |               ^
 */
export function codeFrame(source: string, line: number, column: number | undefined): string[] {
  const lines = source.split(/\r\n?|\n|\u2028|\u2029/)
  const text = lines[line - 1]
  if (text === undefined) return []
  const gutter = String(line)
  const out = [`  ${gutter} | ${text}`]
  if (column !== undefined && column >= 1 && column <= text.length + 1) {
    // Keep tabs as tabs so the caret lines up however the terminal expands them.
    const lead = text.slice(0, column - 1).replace(/[^\t]/g, ' ')
    out.push(`  ${' '.repeat(gutter.length)} | ${lead}^`)
  }
  return out
}
