import type { Stream } from 'node:stream'

const TAIL_CHARS = 2_000

export interface StderrRelay {
  /** The last lines the upstream wrote, for "failed to start" messages. */
  tail(): string
  /** Resolves when the stream has ended (everything is in `tail()`), or after `ms`. */
  ended(ms: number): Promise<void>
}

/**
 * Passes an upstream's stderr on to ours, each line prefixed with its name (so one log shows
 * which server said what), and remembers the end of it.
 */
export function relayStderr(stream: Stream | null, name: string): StderrRelay {
  let tail = ''
  let partial = ''
  let done = stream === null
  stream?.on('data', (chunk: Buffer | string) => {
    const text = partial + chunk.toString()
    const lines = text.split('\n')
    partial = lines.pop() ?? ''
    for (const line of lines) process.stderr.write(`[${name}] ${line}\n`)
    tail = (tail + chunk.toString()).slice(-TAIL_CHARS)
  })
  const waiting: (() => void)[] = []
  stream?.on('end', () => {
    if (partial !== '') process.stderr.write(`[${name}] ${partial}\n`)
    partial = ''
    done = true
    for (const resolve of waiting.splice(0)) resolve()
  })
  return {
    tail: () => tail.trim(),
    ended: (ms) =>
      done
        ? Promise.resolve()
        : new Promise((resolve) => {
            waiting.push(resolve)
            setTimeout(resolve, ms).unref()
          }),
  }
}
