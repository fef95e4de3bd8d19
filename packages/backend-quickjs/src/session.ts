import { SandboxError, createRelaySwitch, type BackendSession, type ExecuteOutcome, type ExecuteRequest } from '@cordon/core/backend'
import { describeError, isOutOfMemory, readThrown, type ThrownInfo } from './engine-failure.js'
import { releaseFreshEngine, type FreshEngine } from './fresh-engine.js'
import { disposeGuestRuntime, makeGuestRuntime, type MadeRuntime } from './guest-runtime.js'
import { HostPromises } from './host-promises.js'
import { GuestRun } from './run.js'
import type { RunEnd, RunEngine, RunHooks } from './run-engine.js'

export interface SessionEngineOptions {
  /** A session keeps the engine from run to run; a one-off run lets it go after its run. */
  keepEngine: boolean
  onDisposeError: ((error: unknown) => void) | undefined
  /** Called once, when an opened engine is let go. */
  onRelease?: () => void
  /**
   * A one-off run's engine that is let go whole (not broken, nothing freed piece by piece): its
   * instance may be made fresh again for another run (see FreshEngine.recycle).
   */
  onRecycle?: (engine: FreshEngine) => void
}

/** Where the engine's callbacks go: the run in progress, or nowhere between runs. */
interface RunRouter {
  current: RunHooks | undefined
}

/**
 * A fresh engine with its guest runtime made (its factory called with host functions that reach
 * whichever run attaches to the switch): everything before a run that does not depend on the
 * run, so the pool can do it ahead of time (~0.6 ms of QuickJS interpreting the runtime's setup).
 */
export interface ReadyEngine {
  readonly engine: RunEngine
  readonly router: RunRouter
}

/** Makes the guest runtime in `fresh`. Throws a SandboxError (MEMORY_LIMIT, BACKEND_CRASHED). */
export function makeReadyEngine(fresh: FreshEngine, onDisposeError: ((error: unknown) => void) | undefined, pullLogs = false): ReadyEngine {
  const relaySwitch = createRelaySwitch()
  const router: RunRouter = { current: undefined }
  const promises = new HostPromises(fresh.context)
  fresh.runtime.setInterruptHandler(() => router.current?.shouldInterrupt() ?? false)
  let made: MadeRuntime
  let thrown: ThrownInfo | undefined
  try {
    made = makeGuestRuntime(fresh.context, fresh.runtimeFactory, relaySwitch.functions, promises, {
      fault: (error) => router.current?.onHostFault(error),
      spent: (ms) => router.current?.onHostTime(ms),
    })
    if (!made.ok) {
      thrown = readThrown(fresh.context, made.error)
      made.error.dispose()
    }
  } catch (error) {
    // A host exception unwound WASM frames: nothing in this instance may be entered again.
    throw startFailure(fresh, error, undefined)
  }
  if (!made.ok) {
    const failure = startFailure(fresh, undefined, thrown)
    releaseEngine(fresh, onDisposeError)
    throw failure
  }
  return { engine: { fresh, guest: made.handles, relaySwitch, promises, pullLogs }, router }
}

/** Frees a ready engine nobody ran (a pool being emptied). */
export function releaseReadyEngine(ready: ReadyEngine): void {
  try {
    ready.engine.promises.dropAll()
    disposeGuestRuntime(ready.engine.guest)
  } catch {
    // Freed with its instance below, or dropped whole.
  }
  releaseEngine(ready.engine.fresh, undefined)
}

/**
 * A fresh engine with its guest runtime made once, serving runs one at a time: a session, or a
 * one-off run (open, run once, let go). After a run stopped from outside (abort, deadline,
 * memory, a broken engine) the guest may be half-way through its code, so the engine is let go
 * and `alive` turns false; a run that ended by itself keeps it for the next one.
 */
export class SessionEngine implements BackendSession {
  private running: { run: GuestRun; settled: Promise<void> } | undefined
  private disposed = false
  private released = false
  /** A host exception unwound WASM frames: the instance is dropped whole, never freed piece by piece. */
  private broken = false

  /** Serves runs on an engine whose guest runtime is made (see makeReadyEngine). */
  static open(ready: ReadyEngine, options: SessionEngineOptions): SessionEngine {
    return new SessionEngine(ready.engine, ready.router, options)
  }

  private constructor(
    private readonly engine: RunEngine,
    private readonly router: RunRouter,
    private readonly options: SessionEngineOptions,
  ) {}

  get alive(): boolean {
    return !this.disposed && !this.released
  }

  async execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    if (!this.alive)
      return { ok: false, error: { code: 'BACKEND_CRASHED', message: 'QuickJS backend: the session has no engine any more' } }
    if (this.running !== undefined)
      return { ok: false, error: { code: 'INTERNAL', message: 'QuickJS backend: a session runs one program at a time' } }
    const run = new GuestRun(this.engine, request, this.options.keepEngine)
    let settle!: () => void
    this.running = { run, settled: new Promise<void>((resolve) => (settle = resolve)) }
    this.router.current = run
    let end: RunEnd | undefined
    try {
      end = await run.execute()
    } finally {
      this.router.current = undefined
      this.running = undefined
      if (end?.broken === true) this.broken = true
      if (end === undefined || !end.reusable || this.disposed) this.release()
      settle()
    }
    return end.outcome
  }

  /** The guest heap's size now: its high-water mark, since a WASM memory never shrinks. */
  memoryUsage(): Promise<number> {
    return Promise.resolve(this.engine.fresh.heapBytes())
  }

  /** Lets the engine go; a run in flight ends first (ABORTED), at the guest's next interrupt check. */
  async dispose(): Promise<void> {
    this.disposed = true
    const running = this.running
    if (running === undefined) return this.release()
    running.run.stop()
    await running.settled
  }

  private release(): void {
    if (this.released) return
    this.released = true
    this.options.onRelease?.()
    // A broken instance is dropped whole: QuickJS's C state is inconsistent, freeing would fail.
    if (this.broken) return
    // A one-off run's instance is garbage once the run is over, its memory with it: freeing the
    // runtime piece by piece first only costs time (~0.6 ms of a ~2 ms run). It is still done
    // when the host asked to hear of a failed free, which is how leaks are caught.
    if (!this.options.keepEngine && this.options.onDisposeError === undefined) return this.options.onRecycle?.(this.engine.fresh)
    try {
      this.engine.promises.dropAll()
      disposeGuestRuntime(this.engine.guest)
    } catch (error) {
      this.options.onDisposeError?.(error)
    }
    releaseEngine(this.engine.fresh, this.options.onDisposeError)
  }
}

/**
 * Frees the engine; QuickJS asserts there that no object is left, which catches a handle this
 * backend forgot. The instance is garbage afterwards whether or not that succeeded.
 */
function releaseEngine(fresh: FreshEngine, onDisposeError: ((error: unknown) => void) | undefined): void {
  try {
    fresh.runtime.removeInterruptHandler()
    releaseFreshEngine(fresh)
  } catch (error) {
    onDisposeError?.(error)
  }
}

function startFailure(fresh: FreshEngine, hostError: unknown, thrown: ThrownInfo | undefined): SandboxError {
  const cause = hostError ?? thrown
  if (fresh.guard.exceeded || (thrown !== undefined && isOutOfMemory(thrown))) {
    return new SandboxError('MEMORY_LIMIT', 'memoryMb is too small for QuickJS and the guest runtime themselves', { cause })
  }
  const detail = thrown !== undefined ? `${thrown.name ?? 'Error'}: ${thrown.message}` : describeError(hostError)
  return new SandboxError('BACKEND_CRASHED', `QuickJS backend: the guest runtime failed to start: ${detail}`, { cause })
}
