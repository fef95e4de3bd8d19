import type { OutputLine } from './format-result.js'

export function writeStdout(text: string): void {
  process.stdout.write(`${text}\n`)
}

export function writeStderr(text: string): void {
  process.stderr.write(`${text}\n`)
}

export function writeLine(line: OutputLine): void {
  ;(line.stream === 'stdout' ? writeStdout : writeStderr)(line.text)
}

export function writeLines(lines: readonly OutputLine[]): void {
  for (const line of lines) writeLine(line)
}

/**
 * `cordon doctor | head -3` closes the pipe early: that is the reader's choice, not an
 * error worth a stack trace.
 */
export function ignoreClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
      throw error
    })
  }
}
