import fs from 'node:fs'

/** A starter holds the lock for milliseconds: one held longer was left by a starter that died. */
const STALE_MS = 10_000
const WAIT_MS = 5_000

/**
 * Runs `take` while holding `<socket>.lock` (a folder: making one is atomic), so two daemons
 * starting at once never both remove a dead daemon's socket file and listen: one takes the name,
 * the other then finds it answering.
 */
export async function withSocketLock<T>(socket: string, take: () => Promise<T>): Promise<T> {
  const lock = `${socket}.lock`
  const until = Date.now() + WAIT_MS
  for (;;) {
    try {
      fs.mkdirSync(lock, { mode: 0o700 })
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      if (Date.now() - modifiedAt(lock) > STALE_MS) fs.rmSync(lock, { recursive: true, force: true })
      else if (Date.now() > until) throw new Error(`${lock} is held by another daemon that is starting`, { cause: error })
      else await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  try {
    return await take()
  } finally {
    fs.rmSync(lock, { recursive: true, force: true })
  }
}

function modifiedAt(file: string): number {
  try {
    return fs.statSync(file).mtimeMs
  } catch {
    return 0
  }
}
