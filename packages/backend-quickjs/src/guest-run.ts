import {
  createGuestHost,
  type ExecuteOutcome,
  type ExecuteRequest,
  type GuestDone,
  type GuestHost,
  type GuestHostFunctions,
  type RunError,
} from '@cordon/core'
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core'
import { EngineGate } from './engine-gate.js'
import { describeError, isHostStackOverflow, isInterrupted, isOutOfMemory, readThrown, syntaxError, type ThrownInfo } from './engine-failure.js'
import { releaseFreshEngine, type FreshEngine } from './fresh-engine.js'
import { newHostObject } from './host-functions.js'
import { runOutcome, type EndReason } from './run-outcome.js'

const ENDED_REPLY = '{"ok":false,"message":"the run has ended"}'

/** Runs one request on a fresh engine, which it consumes. Resolves, never rejects for guest behaviour. */
export function runGuest(engine: FreshEngine, request: ExecuteRequest, onDisposeError?: (error: unknown) => void): Promise<ExecuteOutcome> {
  return new GuestRun(engine, request, onDisposeError).execute()
}

class GuestRun {
  private readonly host: GuestHost
  private readonly gate: EngineGate
  private reason: EndReason | undefined
  /** The error to report for `crash` and `error`. */
  private error: RunError | undefined
  private done: GuestDone | undefined
  /** Time spent in host functions (tools, logging) while inside an engine call: not the guest's CPU. */
  private hostMs = 0
  private readonly handles: QuickJSHandle[] = []
  private wake: () => void = () => {}

  constructor(
    private readonly engine: FreshEngine,
    private readonly request: ExecuteRequest,
    private readonly onDisposeError: ((error: unknown) => void) | undefined,
  ) {
    this.host = createGuestHost(request)
    this.gate = new EngineGate(engine.runtime, {
      isOpen: () => this.reason === undefined,
      onHostException: (error) => this.onHostException(error),
      onJobError: (error) => this.onThrown(error),
    })
  }

  async execute(): Promise<ExecuteOutcome> {
    const { request } = this
    const ended = new Promise<void>((resolve) => {
      this.wake = resolve
    })
    const onAbort = (): void => this.end('aborted')
    request.signal.addEventListener('abort', onAbort, { once: true })
    // The interrupt handler stops running guest code; this timer ends waits on tools and timers.
    const timer = setTimeout(() => this.end('deadline'), Math.max(0, request.deadline - Date.now()))
    try {
      if (request.signal.aborted) this.end('aborted')
      else this.boot()
      if (this.reason === undefined) await ended
    } finally {
      clearTimeout(timer)
      request.signal.removeEventListener('abort', onAbort)
      this.host.close()
      this.release()
    }
    return this.outcome()
  }

  /** Steps 2–4 of the guest protocol: build the runtime, install, compile, start. */
  private boot(): void {
    const { context, runtime, runtimeFactory } = this.engine
    runtime.setInterruptHandler(() => this.shouldInterrupt())
    this.gate.run(() => {
      const hostObject = newHostObject(context, this.hostFunctions(), {
        fault: (error) => this.crash('a host function failed', error),
        spent: (ms) => (this.hostMs += ms),
      })
      const made = this.value(context.callFunction(runtimeFactory, context.undefined, hostObject))
      hostObject.dispose()
      if (made === undefined) return
      const guestRuntime = this.keep(made)
      const method = (name: string): QuickJSHandle => this.keep(context.getProp(guestRuntime, name))
      const [install, start, settle, fire] = [method('install'), method('start'), method('settle'), method('fire')]
      const call = (fn: QuickJSHandle, ...args: QuickJSHandle[]): boolean => {
        const result = this.value(context.callFunction(fn, guestRuntime, ...args))
        for (const arg of args) if (arg.alive) arg.dispose()
        result?.dispose()
        return result !== undefined
      }
      if (!call(install, context.newString(this.request.setup))) return
      const main = this.compile()
      if (main === undefined) return
      this.host.connect({
        settle: (id, ok, payload) =>
          this.gate.enqueue(() => void call(settle, context.newNumber(id), ok ? context.true : context.false, context.newString(payload))),
        fire: (id) => this.gate.enqueue(() => void call(fire, context.newNumber(id))),
      })
      call(start, main)
    })
  }

  /** Compiles the script to the guest's async main function; a failure ends the run. */
  private compile(): QuickJSHandle | undefined {
    const { context } = this.engine
    const result = context.evalCode(this.request.script, this.request.filename, { type: 'global' })
    if (!result.error) return result.value
    const info = readThrown(context, result.error)
    result.error.dispose()
    if (info.name === 'SyntaxError') this.end('error', syntaxError(info, this.request.filename))
    else this.classify(info)
    return undefined
  }

  /** The host functions as the guest runtime sees them, with the run's own checks first. */
  private hostFunctions(): GuestHostFunctions {
    const forward = this.host.functions
    return {
      log: (level, message) => void (this.open() && forward.log(level, message)),
      call: (id, name, args) => void (this.open() && forward.call(id, name, args)),
      callSync: (name, args) => (this.open() ? forward.callSync(name, args) : ENDED_REPLY),
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
    if (this.engine.guard.exceeded) this.end('memory')
    return this.reason === undefined
  }

  /** Called by QuickJS every few thousand operations; true stops the guest uncatchably. */
  private shouldInterrupt(): boolean {
    if (this.reason !== undefined) return true
    if (this.engine.guard.exceeded) this.end('memory')
    else if (Date.now() >= this.request.deadline) this.end('deadline')
    else if (this.request.signal.aborted) this.end('aborted')
    return this.reason !== undefined
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

  private keep(handle: QuickJSHandle): QuickJSHandle {
    this.handles.push(handle)
    return handle
  }

  /** The value of an engine call, or undefined after recording why it threw. */
  private value(result: ReturnType<QuickJSContext['callFunction']>): QuickJSHandle | undefined {
    if (!result.error) return result.value
    this.onThrown(result.error)
    result.error.dispose()
    return undefined
  }

  private onThrown(handle: QuickJSHandle): void {
    this.classify(readThrown(this.engine.context, handle))
  }

  /** An exception that escaped the guest runtime (which catches everything the guest throws). */
  private classify(info: ThrownInfo): void {
    if (this.reason !== undefined) return
    if (this.engine.guard.exceeded || isOutOfMemory(info)) this.end('memory')
    else if (isInterrupted(info)) this.end(Date.now() >= this.request.deadline ? 'deadline' : 'aborted')
    else this.end('error', { code: 'RUNTIME_ERROR', name: info.name ?? 'Error', message: info.message, stack: info.stack })
  }

  private onHostException(error: unknown): void {
    if (this.engine.guard.exceeded) this.end('memory')
    else if (isHostStackOverflow(error)) this.end('stack')
    else this.crash('the engine failed', error)
  }

  /**
   * Frees what the run created, then the engine; QuickJS asserts there that no object is left,
   * which catches a handle this backend forgot. Skipped when a host exception unwound WASM frames
   * mid-call: QuickJS's state is then inconsistent, so the instance is dropped whole.
   */
  private release(): void {
    if (this.gate.broken) return
    try {
      for (const handle of this.handles) if (handle.alive) handle.dispose()
      this.engine.runtime.removeInterruptHandler()
      releaseFreshEngine(this.engine)
    } catch (error) {
      this.onDisposeError?.(error)
    }
  }

  private outcome(): ExecuteOutcome {
    return runOutcome({
      reason: this.reason,
      error: this.error,
      done: this.done,
      request: this.request,
      stats: {
        cpuMs: Math.max(0, this.gate.cpuMs - this.hostMs),
        heapBytes: Math.max(0, this.engine.guard.byteLength - this.engine.heapStartBytes),
      },
    })
  }
}
