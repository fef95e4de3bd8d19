/**
 * What a dead child's stderr says, in one line. Node prints an uncaught error as its source
 * line, the error with its stack and properties, then its own version: the error line and a
 * `code:` tell the cause, the last lines never do. '' when stderr has nothing to say.
 */
export function summarizeStderr(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^Node\.js v\d/.test(line))
  if (lines.length === 0) return ''
  const error = lines.find((line) => /^[A-Z]\w*(Error|Exception)\b.*:/.test(line))
  const code = lines.find((line) => line.startsWith('code: '))
  const picked = error === undefined ? lines.slice(-3) : code === undefined ? [error] : [error, code]
  return picked.join(' | ').slice(0, 500)
}
