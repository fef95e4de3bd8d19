/**
 * An engine child started before any backend exists (early-start.ts), waiting for the first
 * pool that starts the very same child (same command line, folder and first frame) to adopt it.
 * It is on globalThis under a registered symbol because the early-start entry and the main entry
 * are separate bundles, each with its own copy of this module. One waits at most: a pool that
 * starts a different child first ends it, and so does a timer nobody stops.
 */
import { holdEngineProcess, killEngineProcess, spawnEngineProcess, type EngineProcess } from './engine-process.js'

/** Not adopted this long after its start, an early child is ended: nothing is going to use it. */
const UNADOPTED_MS = 10_000
const SLOT = Symbol.for('@cordon/backend-subprocess: engine child started early')

/** An adopted child, its first frame sent; what happened to it while it waited. */
export interface EarlyChild {
  proc: EngineProcess
  spawnError: Error | undefined
  closed: { code: number | null; signal: NodeJS.Signals | null } | undefined
}

interface Waiting extends EarlyChild {
  key: string
  timer: ReturnType<typeof setTimeout> | undefined
}

const holder = globalThis as { [SLOT]?: Waiting | undefined }

/** What identifies an engine child: a child is adopted only by a pool that would start exactly it. */
export function engineChildKey(argv: readonly string[], cwd: string, init: unknown): string {
  return JSON.stringify([argv, cwd, init])
}

/** Starts the child and sends it `firstFrame`; false when another waits already. */
export function startEarlyChild(key: string, argv: readonly string[], cwd: string, firstFrame: Uint8Array): boolean {
  if (holder[SLOT] !== undefined) return false
  const proc = spawnEngineProcess(argv, cwd)
  const waiting: Waiting = { key, proc, spawnError: undefined, closed: undefined, timer: undefined }
  // A spawn failure is an 'error' event: with no listener it would throw in the host.
  proc.on('error', (error) => (waiting.spawnError ??= error))
  proc.on('close', (code, signal) => (waiting.closed = { code, signal }))
  for (const stream of [proc.stdin, proc.stdout, proc.stderr]) stream.on('error', () => {})
  proc.stdin.write(firstFrame)
  // Until adopted, it keeps no process alive (and the child leaves when the host does).
  holdEngineProcess(proc, false)
  waiting.timer = setTimeout(() => {
    if (holder[SLOT] !== waiting) return
    holder[SLOT] = undefined
    killEngineProcess(proc)
  }, UNADOPTED_MS)
  waiting.timer.unref?.()
  holder[SLOT] = waiting
  return true
}

/** The child waiting under `key`, now the caller's; undefined when none does (one for another key is ended). */
export function adoptEarlyChild(key: string): EarlyChild | undefined {
  const waiting = holder[SLOT]
  if (waiting === undefined) return undefined
  holder[SLOT] = undefined
  clearTimeout(waiting.timer)
  if (waiting.key === key) {
    holdEngineProcess(waiting.proc, true)
    return waiting
  }
  killEngineProcess(waiting.proc)
  return undefined
}
