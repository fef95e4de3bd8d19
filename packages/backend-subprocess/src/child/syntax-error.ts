/**
 * Reads name, message and position of a compile error thrown by `new vm.Script`.
 * Node decorates such errors' stacks as `FILE:LINE\n<source line>\n<spaces>^…`,
 * which gives the position in script coordinates.
 */
export function describeSyntaxError(error: unknown, filename: string): unknown[] {
  const e = error as { name?: unknown; message?: unknown; stack?: unknown }
  const name = typeof e?.name === 'string' ? e.name : 'SyntaxError'
  const message = typeof e?.message === 'string' ? e.message : String(error)
  let line: number | null = null
  let column: number | null = null
  if (typeof e?.stack === 'string') {
    const lines = e.stack.split('\n')
    const head = lines[0] ?? ''
    if (head.startsWith(`${filename}:`)) {
      const parsed = Number(head.slice(filename.length + 1))
      if (Number.isSafeInteger(parsed) && parsed > 0) line = parsed
      const caret = (lines[2] ?? '').indexOf('^')
      if (line !== null && caret >= 0) column = caret + 1
    }
  }
  return ['syntax', name, message, line, column]
}
