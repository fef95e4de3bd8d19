import type { RunError } from '@cordon/core'
import {
  RUN_ENDED_REPLY,
  createGuestRelay,
  pollStop,
  watchStop,
  type ExecuteOutcome,
  type ExecuteRequest,
  type GuestDone,
  type GuestRelay,
  type RelayFunctions,
} from '@cordon/core/backend'
import type { EngineContext, EngineHandle, EngineResult } from './engine-api.js'
import { EngineGate } from './engine-gate.js'
import {
  describeError,
  isHostStackOverflow,
  isInterrupted,
  isOutOfMemory,
  readThrown,
  syntaxError,
  type ThrownInfo,
} from './engine-failure.js'
import type { RunEnd, RunEngine, RunHooks } from './run-engine.js'
import { runOutcome, type EndReason } from './run-outcome.js'

/**
 * A result that is a JSON primitive (how the wire writes strings, finite numbers, booleans and
 * null) as a handle made on the host, as the codec would decode it; undefined for anything else.
 */
function primitiveHandle(context: EngineContext, payload: string): EngineHandle | undefined {
  const first = payload.charCodeAt(0)
  // '{' and '[' (objects, arrays, tagged values) are the runtime's to decode.
  if (first === 0x7b || first === 0x5b || Number.isNaN(first)) return undefined
  let value: unknown
  try {
    value = JSON.parse(payload)
  } catch {
    return undefined
  }
  switch (typeof value) {
    case 'number':
      return context.newNumber(value)
    case 'string':
      // quickjs-emscripten's newString writes a C string, which would end at a NUL: the runtime decodes those.
      return value.includes('\u0000') ? undefined : context.newString(value)
    case 'boolean':
      return value ? context.true : context.false
    default:
      return value === null ? context.null : undefined
  }
}

/** Ways a run ends by itself; every other reason stopped the guest from outside or lost the engine. */
const ENDED_BY_ITSELF: ReadonlySet<EndReason> = new Set<EndReason>(['finished', 'error'])

/** Worker mode: the guest's unsent console entries are pulled at most this often while it runs. */
const PULL_LOGS_EVERY_MS = 1

/**
 * One program on an engine: install, compile, start, then tool results, timers and promise jobs
 * until the guest reports its result or a limit ends the run. Resolves, never rejects for guest
 * behaviour. Frees nothing of the engine: its owner (SessionEngine) decides whether it is kept.
 */
export class GuestRun implements RunHooks {
  private readonly relay: GuestRelay
  private readonly gate: EngineGate
  private reason: EndReason | undefined
  /** The error to report for `crash` and `error`. */
  private error: RunError | undefined
  private done: GuestDone | undefined
  private hostMs = 0
  /** The interrupt handler stopped guest code: the engine's state is whatever that code left. */
  private interrupted = false
  private wake: () => void = () => {}
  /** The guest's last console entries are being fetched after a stop (see drainLogs). */
  private draining = false
  /** The guest's console entries are being pulled from inside an interrupt check (see pullLogs). */
  private pulling = false
  private lastPull = 0
  /** The guest sent a console batch in this run (a turn's first entry always goes at once). */
  private logged = false
  /** The guest's main function was started: from then on, an idle engine may mean a deadlock. */
  private started = false
  /** The runtime's `stall` was called and nothing has entered the engine since. */
  private stallAsked = false

  /** `keepEngine`: a session run, whose engine outlives it (see shouldInterrupt). */
  constructor(
    private readonly engine: RunEngine,
    private readonly request: ExecuteRequest,
    private readonly keepEngine: boolean,
  ) {
    this.relay = createGuestRelay(request)
    this.gate = new EngineGate(engine.fresh.runtime, {
      isOpen: () => this.reason === undefined,
      onHostException: (error) => this.onHostException(error),
      onJobError: (error) => this.onThrown(error),
      whenIdle: () => this.whenIdle(),
    })
  }

  async execute(): Promise<RunEnd> {
    const { request } = this
    const ended = new Promise<void>((resolve) => {
      this.wake = resolve
    })
    // The interrupt handler stops running guest code; the signal (aborted at the deadline too)
    // ends waits on tools and timers.
    const stopWatching = watchStop(request, () => this.end('aborted'))
    try {
      if (request.signal.aborted) this.end('aborted')
      else this.boot()
      if (this.reason === undefined) await ended
      this.drainLogs()
    } finally {
      stopWatching()
      this.relay.close()
      this.engine.relaySwitch.attach(undefined)
      // Calls still unanswered never will be: their promises are freed (unless the instance broke).
      if (!this.gate.broken) this.engine.promises.dropAll()
    }
    const { guard } = this.engine.fresh
    const reusable =
      this.keepEngine &&
      this.reason !== undefined &&
      ENDED_BY_ITSELF.has(this.reason) &&
      !this.interrupted &&
      !this.gate.broken &&
      !guard.exceeded
    return { outcome: this.outcome(), reusable, broken: this.gate.broken }
  }

  /** Ends the run from outside (its session is being disposed); the guest stops at the next interrupt check. */
  stop(): void {
    this.end('disposed')
  }

  shouldInterrupt(): boolean {
    if (this.draining || this.pulling) return false
    if (this.reason === undefined) {
      // First, so that what it pulls leaves with this check's stop poll (worker mode).
      if (this.engine.pullLogs && this.logged) this.pullLogs()
      const limit = this.limitReached()
      if (limit === undefined) return false
      this.end(limit)
    } else if (this.keepEngine && ENDED_BY_ITSELF.has(this.reason) && this.limitReached() === undefined) {
      // A session run that ended by itself: the engine call in progress (the rest of a batch of
      // promise jobs) completes rather than stopping half-way through guest code the session keeps.
      return false
    }
    this.interrupted = true
    return true
  }

  onHostFault(error: unknown): void {
    this.crash('a host function failed', error)
  }

  onHostTime(ms: number): void {
    this.hostMs += ms
  }

  /**
   * The guest batches console entries per turn (see the runtime's console): a run stopped from
   * outside (deadline, abort, memory, a stack overflow) may have ended in the middle of a turn,
   * with entries written and not yet sent. The runtime's flushLogs sends them: a bounded call of
   * our own code (one batch), so the interrupt handler lets it finish. After the memory cap,
   * packing the batch uses memory the guest's failed allocation left free (best effort). A run
   * that ended by itself already flushed.
   */
  private drainLogs(): void {
    if (this.reason === undefined || this.reason === 'finished' || this.gate.broken) return
    const { context } = this.engine.fresh
    this.draining = true
    try {
      this.gate.enter(() => {
        const result = context.callFunction(this.engine.guest.flushLogs, this.engine.guest.self)
        if (result.error) result.error.dispose()
        else result.value.dispose()
      })
    } finally {
      this.draining = false
    }
  }

  /**
   * Worker mode. The guest batches its console entries per turn; a turn that computes for long, or
   * that a stop cuts short, still holds some. Inline, drainLogs fetches them after the stop. In a
   * worker that comes too late when the worker is starved of CPU (the host ends the run a grace
   * period after its deadline) or killed. So, while guest code runs, the interrupt check calls the
   * runtime's flushLogs(true) (at most every PULL_LOGS_EVERY_MS): the entries then leave with the stop
   * poll that follows, as each entry did when it crossed on its own (3 µs of engine crossing per
   * entry, most of a 1,000-line run). The call is our own bounded code (one batch); inside emit or
   * a flush it does nothing. A host exception in it is not caught: it breaks the engine as it
   * would in any call, and the outer call's gate drops the instance.
   */
  private pullLogs(): void {
    const now = performance.now()
    if (now - this.lastPull < PULL_LOGS_EVERY_MS) return
    this.lastPull = now
    const { context } = this.engine.fresh
    this.pulling = true
    try {
      const result = context.callFunction(this.engine.guest.flushLogs, this.engine.guest.self, context.true)
      if (result.error) result.error.dispose()
      else result.value.dispose()
    } finally {
      this.pulling = false
    }
  }

  /** Steps 3–5 of the guest protocol (the runtime itself was made with the engine): install, compile, start. */
  private boot(): void {
    const { fresh, guest, relaySwitch } = this.engine
    const { context } = fresh
    // Promise jobs the session's last run left queued run first. The guest runtime had finished
    // that run, so they reach no host; they count against this run's deadline and memory.
    if (fresh.runtime.hasPendingJob()) this.gate.run(() => {})
    this.gate.run(() => {
      // Only `functions` is read by the switch: the run's own checks in front of this run's host.
      relaySwitch.attach({ ...this.relay, functions: this.relayFunctions() })
      if (!this.call(guest.install, context.newString(this.request.setup))) return
      const main = this.compile()
      if (main === undefined) return
      this.relay.connect({
        settle: (id, ok, payload) => this.gate.enqueue(() => this.entered(() => this.settle(id, ok, payload))),
        fire: (id) => this.gate.enqueue(() => this.entered(() => void this.call(guest.fire, context.newNumber(id)))),
      })
      this.started = true
      this.call(guest.start, main)
    })
  }

  /** A tool result or timer enters the engine: the guest may make progress, so a stall is asked about anew. */
  private entered(fn: () => void): void {
    this.stallAsked = false
    fn()
  }

  /**
   * The engine is idle (no entry queued, no promise job left). If the guest started and nothing
   * the host holds can wake it, the runtime is asked to end the run DEADLOCK (once per idle spell).
   */
  private whenIdle(): (() => void) | undefined {
    if (!this.started || this.stallAsked || this.reason !== undefined || !this.relay.stalled()) return undefined
    this.stallAsked = true
    return () => void this.call(this.engine.guest.stall)
  }

  /**
   * Answers an async tool call. Its promise was made on the host (HostPromises): a primitive
   * result resolves it from here; anything else, or an error, is decoded by the runtime's `answer`.
   */
  private settle(id: number, ok: boolean, payload: string): void {
    const { context } = this.engine.fresh
    const deferred = this.engine.promises.take(id)
    if (deferred === undefined) {
      this.call(this.engine.guest.settle, context.newNumber(id), ok ? context.true : context.false, context.newString(payload))
      return
    }
    const primitive = ok ? primitiveHandle(context, payload) : undefined
    if (primitive !== undefined) {
      // consume frees the value's handle (a no-op for the static true, false and null).
      primitive.consume((value) => deferred.resolve(value))
      return
    }
    const { answer, self } = this.engine.guest
    const text = context.newString(payload)
    const answered = context.callFunction(answer, self, ok ? context.true : context.false, text)
    text.dispose()
    if (!answered.error) {
      answered.value.consume((value) => deferred.resolve(value))
      return
    }
    // Interrupted or out of memory: the run ends (and its unanswered promises are freed with it).
    if (this.reason !== undefined || this.engine.fresh.guard.exceeded) this.onThrown(answered.error)
    else deferred.reject(answered.error)
    answered.error.dispose()
    deferred.dispose()
  }

  /** Calls a guest runtime method, then frees its arguments and result. False when it threw. */
  private call(method: EngineHandle, ...args: EngineHandle[]): boolean {
    const result = this.value(this.engine.fresh.context.callFunction(method, this.engine.guest.self, ...args))
    for (const arg of args) if (arg.alive) arg.dispose()
    result?.dispose()
    return result !== undefined
  }

  /** Compiles the script to the guest's async main function; a failure ends the run. */
  private compile(): EngineHandle | undefined {
    const { context } = this.engine.fresh
    const result = context.evalCode(this.request.script, this.request.filename, { type: 'global' })
    if (!result.error) return result.value
    const info = readThrown(context, result.error)
    result.error.dispose()
    if (info.name === 'SyntaxError') this.end('error', syntaxError(info, this.request.filename))
    else this.classify(info)
    return undefined
  }

  /** The host functions as the guest runtime sees them, with the run's own checks first. */
  private relayFunctions(): RelayFunctions {
    const forward = this.relay.functions
    return {
      // Entries are accepted until the relay closes, after the run ended too: the guest wrote them
      // before (it writes none once it finished), and a batch may be sent only at the end (drainLogs).
      log: (entries) => {
        this.logged = true
        forward.log(entries)
      },
      call: (id, name, args) => void (this.open() && forward.call(id, name, args)),
      callSync: (name, args) => (this.open() ? forward.callSync(name, args) : RUN_ENDED_REPLY),
      timer: (id, delayMs) => void (this.open() && forward.timer(id, delayMs)),
      done: (status, payload, logsDropped) => {
        if (!this.open()) return
        this.done = { status, payload, logsDropped }
        forward.done(status, payload, logsDropped)
        this.end('finished')
      },
    }
  }

  /** Whether the guest still has a say; a failed allocation ends it (even if the guest caught it). */
  private open(): boolean {
    if (this.engine.fresh.guard.exceeded) this.end('memory')
    return this.reason === undefined
  }

  private limitReached(): EndReason | undefined {
    if (this.engine.fresh.guard.exceeded) return 'memory'
    if (Date.now() >= this.request.deadline) return 'deadline'
    // pollStop also reads a stop the host set in shared memory (worker mode), which no event
    // could deliver while guest code keeps this thread busy.
    if (pollStop(this.request.signal)) return 'aborted'
    return undefined
  }

  private end(reason: EndReason, error?: RunError): void {
    if (this.reason !== undefined) return
    this.reason = reason
    this.error = error
    this.wake()
  }

  private crash(what: string, cause: unknown): void {
    this.end('crash', { code: 'BACKEND_CRASHED', message: `QuickJS backend: ${what}: ${describeError(cause)}` })
  }

  /** The value of an engine call, or undefined after recording why it threw. */
  private value(result: EngineResult<EngineHandle>): EngineHandle | undefined {
    if (!result.error) return result.value
    this.onThrown(result.error)
    result.error.dispose()
    return undefined
  }

  private onThrown(handle: EngineHandle): void {
    this.classify(readThrown(this.engine.fresh.context, handle))
  }

  /** An exception that escaped the guest runtime (which catches everything the guest throws). */
  private classify(info: ThrownInfo): void {
    if (this.reason !== undefined) return
    if (this.engine.fresh.guard.exceeded || isOutOfMemory(info)) this.end('memory')
    else if (isInterrupted(info)) this.end(Date.now() >= this.request.deadline ? 'deadline' : 'aborted')
    else this.end('error', { code: 'RUNTIME_ERROR', name: info.name ?? 'Error', message: info.message, stack: info.stack })
  }

  private onHostException(error: unknown): void {
    if (this.engine.fresh.guard.exceeded) this.end('memory')
    else if (isHostStackOverflow(error)) this.end('stack')
    else this.crash('the engine failed', error)
  }

  private outcome(): ExecuteOutcome {
    return runOutcome({
      reason: this.reason,
      error: this.error,
      done: this.done,
      request: this.request,
      stats: {
        cpuMs: Math.max(0, this.gate.cpuMs - this.hostMs),
        heapBytes: this.engine.fresh.heapBytes(),
      },
    })
  }
}
