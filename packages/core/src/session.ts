import { SandboxError, isSandboxError, type ErrorCode } from './errors.js'
import { resolveLimits, type Limits } from './limits.js'
import type { RunOptions, SandboxDefaults, ToolSet } from './options.js'
import type { RunResult } from './result.js'
import type { Session, SessionEnd, SessionInfo, SessionOptions, SessionRunOptions } from './session-types.js'
import type { BackendSession, SandboxBackend } from './backend/v1/sandbox-backend.js'
import { checkGlobalNames, checkOptions, mergeRunOptions } from './run/check-options.js'
import { prepareRun } from './run/run-program.js'
import { executeInSandbox, type SandboxRunHost } from './run/execute-in-sandbox.js'
import { checkSessionRunOptions, narrowTools } from './run/session-options.js'
import { registerTools } from './tools/tool-registry.js'
import { resolveInspectorPlan } from './inspector/inspector-options.js'

/** What a session needs from the sandbox that made it. */
export interface SessionOwner {
  backend: SandboxBackend
  envLimits: Partial<Limits>
  defaultLimits: Partial<Limits>
  defaults: SandboxDefaults
  /** The sandbox's own partition, for a session that names none. */
  partition: string
  /** Called once, when the session ends for any reason. */
  forget(session: Session): void
  /** The sandbox's admission control: session runs count among its runs in flight. */
  runHost: SandboxRunHost
}

/**
 * Codes of runs that ended part-way through guest code (stopped by the host or the backend) or
 * lost the engine: the session's state can no longer be trusted.
 */
const SESSION_ENDING: readonly ErrorCode[] = [
  'TIMEOUT',
  'ABORTED',
  'TOOL_CALL_LIMIT',
  'MEMORY_LIMIT',
  'BACKEND_CRASHED',
  'BACKEND_UNAVAILABLE',
  'INTERNAL',
]

export async function openSession(owner: SessionOwner, id: string, options: SessionOptions): Promise<Session> {
  const { backend } = owner
  if (backend.capabilities.sessions !== true || typeof backend.openSession !== 'function') {
    throw new SandboxError('UNSUPPORTED', `backend ${backend.name} does not support sessions (capabilities.sessions is false)`)
  }
  const { id: _id, ...sessionOptions } = options
  const { fetch, modules } = sessionOptions as { fetch?: unknown; modules?: unknown }
  if (fetch !== undefined && fetch !== false) {
    throw new SandboxError('INVALID_OPTIONS', 'session options: fetch is not available in sessions yet; use sandbox.run')
  }
  if (modules !== undefined) {
    throw new SandboxError('INVALID_OPTIONS', 'session options: modules are not available in sessions yet; use sandbox.run')
  }
  const sessionLimits = checkOptions(sessionOptions, 'session options', false)
  const merged = mergeRunOptions(owner.defaults, sessionOptions)
  const grant = merged.tools
  const grantRegistry = registerTools(grant)
  const limits = resolveLimits(owner.envLimits, owner.defaultLimits, sessionLimits)
  if (grantRegistry.hasSync && !backend.capabilities.syncHostCalls) {
    throw new SandboxError(
      'UNSUPPORTED',
      `backend ${backend.name} cannot run sync tools (capabilities.syncHostCalls is false); drop sync: true`,
    )
  }
  const memoryExplicit =
    sessionLimits.memoryMb !== undefined || owner.defaultLimits.memoryMb !== undefined || owner.envLimits.memoryMb !== undefined
  if (memoryExplicit && !backend.capabilities.memoryLimit) {
    throw new SandboxError('UNSUPPORTED', `backend ${backend.name} cannot enforce memoryMb (capabilities.memoryLimit is false)`)
  }
  if (merged.globals !== undefined) checkGlobalNames(merged.globals, grantRegistry.roots)
  const inspectable = resolveInspectorPlan(merged.inspector, merged.cpuProfile, 'session options') !== undefined
  if (inspectable && backend.capabilities.inspector !== true) {
    throw new SandboxError(
      'UNSUPPORTED',
      `backend ${backend.name} has no inspector (capabilities.inspector is false): a session cannot use inspector or cpuProfile there`,
    )
  }

  let engine: BackendSession
  try {
    engine = await backend.openSession({
      memoryMb: limits.memoryMb,
      partition: merged.partition ?? owner.partition,
      ...(inspectable ? { inspector: true } : {}),
    })
  } catch (error) {
    if (isSandboxError(error)) throw error
    throw new SandboxError(
      'BACKEND_CRASHED',
      `backend ${backend.name} could not open a session: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    )
  }
  return new BackendBoundSession(owner, id, engine, { ...merged, memoryMb: limits.memoryMb }, sessionLimits, inspectable)
}

class BackendBoundSession implements Session {
  ended: SessionEnd | undefined
  private readonly createdAt = new Date()
  private runs = 0
  private busy = false
  private heapBytes: number | undefined
  private pendingGlobals: Record<string, unknown> | undefined
  private tail: Promise<void> = Promise.resolve()
  /** Aborted when the session ends: runs in flight or queued resolve ABORTED. */
  private readonly ending = new AbortController()
  private readonly narrowed = new Map<string, ToolSet>()
  private disposal: Promise<void> | undefined

  constructor(
    private readonly owner: SessionOwner,
    readonly id: string,
    private readonly engine: BackendSession,
    private readonly options: RunOptions & { memoryMb: number },
    private readonly sessionLimits: Partial<Limits>,
    private readonly inspectable: boolean,
  ) {
    this.pendingGlobals = options.globals
  }

  async run<T = unknown>(code: string, options?: SessionRunOptions): Promise<RunResult<T>> {
    this.assertOpen()
    if (typeof code !== 'string') throw new SandboxError('INVALID_OPTIONS', `code must be a string, got ${typeof code}`)
    const checked = checkSessionRunOptions(options)
    const tools = narrowTools(this.options.tools, checked.tools, this.narrowed)
    const registry = registerTools(tools)
    if (options?.globals !== undefined) checkGlobalNames(options.globals, registry.roots)
    const limits = resolveLimits(this.owner.envLimits, this.owner.defaultLimits, {
      ...this.sessionLimits,
      ...checked.limits,
      memoryMb: this.options.memoryMb,
    })
    const signals = [this.ending.signal, ...(options?.signal ? [options.signal] : [])]
    const signal = AbortSignal.any(signals)

    // Queue behind the previous run; an abort (or the session's end) releases the wait early,
    // and the run then resolves ABORTED without reaching the engine.
    let release!: () => void
    const turn = new Promise<void>((resolve) => (release = resolve))
    const previous = this.tail
    this.tail = previous.then(() => turn)
    try {
      await untilOrAborted(previous, signal)
      const globals = signal.aborted ? undefined : this.takeGlobals(options?.globals)
      let lastRun = { executed: false, stopped: false }
      const plan = {
        backend: this.owner.backend,
        code,
        options: {
          tools,
          globals,
          signal,
          onEvent: options?.onEvent ?? this.options.onEvent,
          includeToolValuesInEvents: options?.includeToolValuesInEvents ?? this.options.includeToolValuesInEvents,
          logArgs: options?.logArgs ?? this.options.logArgs,
          trace: this.options.trace,
          inspector: options?.inspector ?? this.options.inspector,
          cpuProfile: options?.cpuProfile ?? this.options.cpuProfile,
        },
        limits,
        registry,
        memoryExplicit: false,
        startedAt: Date.now(),
        startedPerf: performance.now(),
        partition: this.options.partition ?? this.owner.partition,
        session: {
          execute: (request: Parameters<BackendSession['execute']>[0]) => this.engine.execute(request),
          ended: ({ executed, stopped }: { executed: boolean; stopped: boolean }) => {
            if (executed) this.runs++
            lastRun = { executed, stopped }
          },
          inspectable: this.inspectable,
        },
      }
      this.busy = true
      let result: RunResult
      try {
        let prepared: Awaited<ReturnType<typeof prepareRun>>
        try {
          prepared = await prepareRun(plan)
        } catch (error) {
          if (globals !== undefined && this.runs === 0) this.pendingGlobals = this.options.globals
          throw error
        }
        result = await executeInSandbox(plan, prepared, this.owner.runHost)
      } finally {
        this.busy = false
      }
      if (result.stats.heapBytes !== undefined) this.heapBytes = result.stats.heapBytes
      if (lastRun.executed && this.ended === undefined) {
        const why = this.endingCause(result, lastRun.stopped)
        if (why !== undefined)
          await this.end({ code: why.code, message: `the session ended: run ${this.runs} ended with ${why.code} (${why.message})` })
      }
      return result as RunResult<T>
    } finally {
      release()
    }
  }

  async memoryUsage(): Promise<{ heapBytes: number; memoryMb: number }> {
    this.assertOpen()
    const heapBytes = await this.engine.memoryUsage()
    this.heapBytes = heapBytes
    return { heapBytes, memoryMb: this.options.memoryMb }
  }

  info(): SessionInfo {
    const info: SessionInfo = {
      id: this.id,
      backend: this.owner.backend.name,
      createdAt: new Date(this.createdAt),
      runs: this.runs,
      memoryMb: this.options.memoryMb,
      busy: this.busy,
    }
    if (this.heapBytes !== undefined) info.heapBytes = this.heapBytes
    return info
  }

  dispose(): Promise<void> {
    return this.end({ code: 'DISPOSED', message: 'the session was disposed' })
  }

  private end(reason: SessionEnd): Promise<void> {
    if (this.disposal !== undefined) return this.disposal
    this.ended = reason
    this.ending.abort(new SandboxError('ABORTED', reason.message))
    this.owner.forget(this)
    this.disposal = this.engine.dispose().catch(() => {
      // The engine is gone either way; a failing dispose must not fail the host's cleanup.
    })
    return this.disposal
  }

  /** Why the run just finished leaves the engine in a state no later run may use, if it does. */
  private endingCause(result: RunResult, stopped: boolean): { code: ErrorCode; message: string } | undefined {
    if (!result.ok && (stopped || !this.engine.alive || SESSION_ENDING.includes(result.error.code))) return result.error
    if (!this.engine.alive) return { code: 'BACKEND_CRASHED', message: `backend ${this.owner.backend.name} lost the session's engine` }
    return undefined
  }

  /** Session globals go in before the first run only; a run's own globals every time. */
  private takeGlobals(runGlobals: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    const first = this.pendingGlobals
    this.pendingGlobals = undefined
    if (first === undefined) return runGlobals
    return runGlobals === undefined ? first : { ...first, ...runGlobals }
  }

  private assertOpen(): void {
    if (this.ended !== undefined) {
      throw new SandboxError('DISPOSED', `session ${this.id} cannot run code any more: ${this.ended.message}`)
    }
  }
}

function untilOrAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
    void promise.then(done)
  })
}
