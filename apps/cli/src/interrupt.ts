import { EXIT } from './exit-codes.js'

export interface Interrupt {
  /** Aborts when SIGINT or SIGTERM arrives: pass it to `sandbox.run`. */
  signal: AbortSignal
  /** The first signal that arrived, if any. */
  readonly by: NodeJS.Signals | undefined
  /** Restores the default signal behaviour. */
  dispose(): void
}

/** How long an aborted run may take to wind down before the process exits anyway. */
const GRACE_MS = 3_000

/**
 * Ctrl-C aborts the run through its AbortSignal, so it ends ABORTED with its logs, the
 * sandbox is disposed and the CLI exits 130. Repeated signals change nothing; if winding
 * down takes longer than GRACE_MS, the process exits anyway.
 */
export function onInterrupt(): Interrupt {
  const controller = new AbortController()
  let by: NodeJS.Signals | undefined
  const handler = (signal: NodeJS.Signals): void => {
    if (by !== undefined) return
    by = signal
    controller.abort(new Error(`interrupted by ${signal}`))
    // unref: a run that winds down in time lets the process end on its own.
    setTimeout(() => process.exit(signal === 'SIGTERM' ? EXIT.SIGTERM : EXIT.SIGINT), GRACE_MS).unref()
  }
  process.on('SIGINT', handler)
  process.on('SIGTERM', handler)
  return {
    signal: controller.signal,
    get by() {
      return by
    },
    dispose() {
      process.off('SIGINT', handler)
      process.off('SIGTERM', handler)
    },
  }
}
