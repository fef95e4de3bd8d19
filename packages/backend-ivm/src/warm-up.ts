import type { IvmContext, IvmIsolate, IvmReference } from './ivm-types.js'

/** A fixed program in the shape core gives every run; no user code is involved. */
const WARM_UP_SCRIPT = '(async function () {\nreturn 1\n})'
const WARM_UP_SETUP = '{"tools":[],"limits":{"maxOutputBytes":1024,"maxLogEntries":1,"maxLogBytes":1024},"globals":null}'
/** The warm-up's result arrives right behind its start call; this only bounds a broken isolate. */
const WARM_UP_DONE_WAIT_MS = 2_000

/** Where the isolate's `done` callback goes while the warm-up runs. */
export interface WarmUp {
  done(): void
  readonly finished: Promise<void>
}

export function startWarmUp(): WarmUp {
  let done!: () => void
  const finished = new Promise<void>((resolve) => (done = resolve))
  return { done, finished }
}

/**
 * V8 compiles a function the first time it is called, so without this the first run in an
 * isolate would compile the guest runtime's install, start, codec and done paths on its own
 * clock (~0.6 ms of a ~2 ms run). A prepared isolate runs one fixed program through the whole
 * protocol instead, before any run owns it; what that leaves behind (a finished run's flags,
 * console and timers defined) is what the next `install` resets anyway, as it does between
 * the runs of a session. Resolves once the warm-up's `done` has arrived, so it cannot be
 * mistaken for a later run's.
 */
export async function warmUp(
  isolate: IvmIsolate,
  context: IvmContext,
  install: IvmReference,
  start: IvmReference,
  warming: WarmUp,
): Promise<void> {
  await install.apply(undefined, [WARM_UP_SETUP])
  const script = await isolate.compileScript(WARM_UP_SCRIPT, { filename: 'cordon-warm-up' })
  const main = await script.run(context, { reference: true, release: true })
  await start.apply(undefined, [main.derefInto({ release: true })])
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the guest runtime did not finish its warm-up run')), WARM_UP_DONE_WAIT_MS)
  })
  try {
    await Promise.race([warming.finished, late])
  } finally {
    clearTimeout(timer)
  }
}
