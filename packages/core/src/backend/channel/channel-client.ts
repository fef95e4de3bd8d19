import { SandboxError } from '../../errors.js'
import type { RunError } from '../../result.js'
import { toolErrorPayload } from '../guest-relay.js'
import { toolFailureOf } from '../../tool-failure.js'
import { unpackLogEntries } from '../log-entries.js'
import { timeoutError, watchStop } from '../run-stop.js'
import type { BackendSession, ExecuteOutcome, ExecuteRequest } from '../v1/sandbox-backend.js'
import { CHANNEL_VERSION, parseReport, type Order, type Report, type RunOrder, type SyncReply } from './channel-protocol.js'
import { RUN_SLOTS, clearStop, raiseStop } from './stop-flags.js'
import { NearInspector } from './inspector-relay.js'

/** How the host talks to one far side. */
export interface NearTransport {
  send(batch: Order[]): void
  /** The stop flags both sides see, where memory is shared. */
  flags?: Int32Array
  /** Answers a synchronous tool call on the reply line, then wakes the blocked far side. */
  replySync?(reply: SyncReply): void
}

export interface ChannelClientOptions {
  /** Names the far side in messages, e.g. `QuickJS worker`. */
  label: string
  /** Longest string a report may carry. */
  maxChars: number
  /** How long a stopped run may take to report before it is resolved with its stop reason anyway. */
  stopGraceMs: number
  /** How long after that the far side may still take to report it before it is ended as stuck. */
  killGraceMs: number
  /**
   * The far side must be ended now (a breach of the protocol, or a run that did not stop in
   * time); `fail` follows once it is gone. `reason` is for the far side's other runs.
   */
  kill(reason: RunError): void
  /** A `warn` report. */
  onWarn?(message: string): void
  /** The number of runs and pending requests changed (the pool holds the far side while busy). */
  onLoad?(): void
}

interface NearRun {
  request: ExecuteRequest
  /** 0 for a one-off run. */
  sessionId: number
  slot: number
  resolve(outcome: ExecuteOutcome): void
  /** Resolves when `resolve` was called. */
  settled: Promise<void>
  /** Why the host stopped the run, once it did. */
  stopReason: RunError | undefined
  /** Resolved already (its stop grace ran out); the far side's late report only frees the slot. */
  resolved: boolean
  stopWatch: () => void
  timer: ReturnType<typeof setTimeout> | undefined
  /** The run's inspector, driving the far engine's sessions (requests with `inspector`). */
  inspector?: NearInspector
}

interface Pending<T> {
  resolve(value: T): void
  reject(error: SandboxError): void
}

/**
 * The host's end of one channel: runs and sessions on one far side, whose every report is
 * checked (`parseReport`, then: is this a run or session we sent?) before it reaches a tool or a
 * result. Any breach ends the far side. A run the host stops gets its stop flag raised and a
 * `stop` order; if it has not reported `stopGraceMs` later, its far side is ended.
 */
export class ChannelClient {
  private readonly runs = new Map<number, NearRun>()
  private readonly slots: boolean[] = new Array<boolean>(RUN_SLOTS).fill(false)
  private readonly opens = new Map<number, Pending<void>>()
  private readonly usages = new Map<number, Pending<number>>()
  private readonly closes = new Map<number, Pending<void>>()
  private readonly sessions = new Map<number, ChannelSession>()
  private nextId = 1
  private outbox: Order[] = []
  private flushQueued = false
  private lostError: RunError | undefined
  private greeted = false

  constructor(
    private readonly transport: NearTransport,
    private readonly options: ChannelClientOptions,
  ) {}

  /** Runs in flight. */
  get runCount(): number {
    return this.runs.size
  }

  /** The far side has said hello: it has started and serves. */
  get started(): boolean {
    return this.greeted
  }

  /** Runs in flight and requests awaiting an answer: while non-zero, the far side has work. */
  get busy(): boolean {
    return this.runs.size + this.opens.size + this.usages.size + this.closes.size > 0
  }

  /** Sessions open on this far side. */
  get sessionCount(): number {
    return this.sessions.size
  }

  get lost(): boolean {
    return this.lostError !== undefined
  }

  /**
   * Whether another run fits: every run needs a stop slot, and a far side with a run that did not
   * report its stop in time may be ended any moment, so it takes no new work.
   */
  get hasRoom(): boolean {
    if (this.lost || this.runs.size >= RUN_SLOTS) return false
    for (const run of this.runs.values()) if (run.resolved) return false
    return true
  }

  /** Runs `request` on the far side; `ref` names the run in the far side's logs. */
  execute(request: ExecuteRequest, sessionId = 0, ref?: string): Promise<ExecuteOutcome> {
    if (this.lostError !== undefined) return Promise.resolve({ ok: false, error: this.lostError })
    const slot = this.slots.indexOf(false)
    if (slot < 0) return Promise.resolve({ ok: false, error: { code: 'INTERNAL', message: this.options.label + ' has no free run slot' } })
    this.slots[slot] = true
    const runId = this.nextId++
    if (this.transport.flags !== undefined) clearStop(this.transport.flags, slot)
    let settle!: () => void
    const settled = new Promise<void>((done) => (settle = done))
    return new Promise<ExecuteOutcome>((resolve) => {
      const run: NearRun = {
        request,
        sessionId,
        slot,
        resolve: (outcome) => {
          resolve(outcome)
          settle()
        },
        settled,
        stopReason: undefined,
        resolved: false,
        stopWatch: () => {},
        timer: undefined,
      }
      if (request.inspector !== undefined) run.inspector = new NearInspector(request.inspector, runId, (order) => this.post(order))
      this.runs.set(runId, run)
      this.options.onLoad?.()
      run.stopWatch = watchStop(request, (error) => this.stopRun(runId, error))
      const { script, filename, setup, tools, limits, deadline, traceparent } = request
      const order: RunOrder = { script, filename, setup, tools: [...tools], limits, timeLeftMs: Math.max(0, deadline - Date.now()) }
      if (traceparent !== undefined) order.traceparent = traceparent
      if (ref !== undefined) order.ref = ref
      if (run.inspector !== undefined) order.inspector = true
      this.post(['run', runId, sessionId, slot, order])
    })
  }

  /**
   * Opens a session on the far side (`inspector`: see SessionRequest); its `execute` takes a `ref`
   * for the far side's logs too.
   */
  openSession(memoryMb: number, inspector = false): Promise<ChannelBackendSession> {
    const sessionId = this.nextId++
    const order: Order = inspector ? ['open', sessionId, memoryMb, true] : ['open', sessionId, memoryMb]
    return this.ask(this.opens, sessionId, order).then(() => {
      const session = new ChannelSession(this, sessionId)
      this.sessions.set(sessionId, session)
      return session
    })
  }

  /** @internal */ usage(sessionId: number): Promise<number> {
    const askId = this.nextId++
    return this.ask(this.usages, askId, ['usage', sessionId, askId])
  }

  /** @internal */ close(sessionId: number): Promise<void> {
    if (!this.sessions.delete(sessionId) || this.lostError !== undefined) return Promise.resolve()
    return this.ask(this.closes, sessionId, ['close', sessionId]).catch(() => undefined)
  }

  /**
   * @internal Stops the session's run in flight, if any (its session is being disposed). Resolves
   * when that run has resolved (it reports, or its stop grace ends); undefined without one.
   */
  stopSessionRun(sessionId: number, error: RunError): Promise<void> | undefined {
    for (const [runId, run] of this.runs) {
      if (run.sessionId !== sessionId) continue
      this.stopRun(runId, error)
      return run.settled
    }
    return undefined
  }

  /** A batch of reports from the far side: untrusted. */
  receive(batch: unknown): void {
    if (this.lostError !== undefined) return
    if (!Array.isArray(batch)) return this.breach('a batch must be an array')
    for (const message of batch) {
      const report = parseReport(message, { maxChars: this.options.maxChars })
      if (typeof report === 'string') return this.breach(report)
      const problem = this.handle(report)
      if (problem !== undefined) return this.breach(problem)
      if (this.lostError !== undefined) return
    }
  }

  /** The far side is gone: every run and request ends, runs the host stopped with their own reason. */
  fail(error: RunError): void {
    if (this.lostError !== undefined) return
    this.lostError = error
    for (const runId of [...this.runs.keys()]) {
      const run = this.runs.get(runId)
      if (run === undefined) continue
      this.finish(runId, { ok: false, error: run.stopReason ?? error })
    }
    const failure = new SandboxError(error.code, error.message)
    for (const pending of [...this.opens.values(), ...this.usages.values(), ...this.closes.values()]) pending.reject(failure)
    this.opens.clear()
    this.usages.clear()
    this.closes.clear()
    for (const session of this.sessions.values()) session.setAlive(false)
    this.sessions.clear()
    this.options.onLoad?.()
  }

  private handle(report: Report): string | undefined {
    if (report[0] !== 'hello' && !this.greeted) return 'a report before hello'
    switch (report[0]) {
      case 'hello':
        if (this.greeted) return 'a second hello'
        if (report[1] !== CHANNEL_VERSION) return 'channel version ' + report[1] + ', expected ' + CHANNEL_VERSION
        this.greeted = true
        return undefined
      case 'logs': {
        const run = this.runs.get(report[1])
        if (run === undefined) return 'logs for no run'
        // Resolved at its stop grace: its result, logs included, has gone to the host, and whoever
        // serves that host (a server's channel) may have reported it already. Later entries go nowhere.
        if (run.resolved) return undefined
        const { host } = run.request
        return unpackLogEntries(report[2], (level, message, args) => host.log(level, message, args)) ? undefined : 'malformed log entries'
      }
      case 'call': {
        const [, runId, callId, name, args] = report
        const run = this.runs.get(runId)
        if (run === undefined) return 'a tool call for no run'
        if (run.resolved) {
          this.post(['settle', runId, callId, false, toolErrorPayload(new Error('the run has ended'))])
          return undefined
        }
        run.request.host.callTool(name, args).then(
          (value) => this.runs.get(runId) === run && this.post(['settle', runId, callId, true, value]),
          (error: unknown) => this.runs.get(runId) === run && this.post(['settle', runId, callId, false, toolErrorPayload(error)]),
        )
        return undefined
      }
      case 'call-sync': {
        const [, runId, name, args] = report
        const run = this.runs.get(runId)
        if (run === undefined || this.transport.replySync === undefined) return 'a synchronous call for no run'
        this.transport.replySync(this.callSync(run, name, args))
        return undefined
      }
      case 'done': {
        const [, runId, outcome, alive] = report
        const run = this.runs.get(runId)
        if (run === undefined) return 'a result for no run'
        if (run.sessionId !== 0) this.sessions.get(run.sessionId)?.setAlive(alive)
        this.finish(runId, this.reconcile(run, outcome))
        return undefined
      }
      case 'opened': {
        const [, sessionId, error] = report
        const pending = this.opens.get(sessionId)
        if (pending === undefined) return 'an opened for no session'
        this.opens.delete(sessionId)
        if (error === null) pending.resolve()
        else pending.reject(new SandboxError(error.code, error.message))
        this.options.onLoad?.()
        return undefined
      }
      case 'usage':
        return this.answer(this.usages, report[2], report[3])
      case 'closed':
        return this.answer(this.closes, report[1], undefined)
      case 'warn':
        this.options.onWarn?.(report[1])
        return undefined
      case 'inspect-attached':
      case 'inspect-message':
      case 'inspect-wait': {
        const inspector = this.runs.get(report[1])?.inspector
        if (inspector === undefined) return 'inspector reports for a run without an inspector'
        if (report[0] === 'inspect-attached') inspector.attached()
        else if (report[0] === 'inspect-message') inspector.message(report[2], report[3])
        else inspector.wait(report[2])
        return undefined
      }
    }
  }

  private callSync(run: NearRun, name: string, args: string): SyncReply {
    if (run.stopReason !== undefined) return { ok: false, message: 'the run has ended' }
    try {
      return { ok: true, value: run.request.host.callToolSync(name, args) }
    } catch (error) {
      return { ok: false, ...toolFailureOf(error) }
    }
  }

  /** A run the host stopped reports the host's own reason, however the far side worded it. */
  private reconcile(run: NearRun, outcome: ExecuteOutcome): ExecuteOutcome {
    // The far side's clock may end a run a moment before the host's deadline timer fires: past the
    // deadline, that is the host's TIMEOUT too.
    const expired = Date.now() >= run.request.deadline ? timeoutError(run.request.limits.timeoutMs) : undefined
    const reason = run.stopReason ?? expired
    if (outcome.ok || reason === undefined) return outcome
    const code = outcome.error.code
    if (code !== 'ABORTED' && code !== 'TIMEOUT' && code !== reason.code) return outcome
    return outcome.stats === undefined ? { ok: false, error: reason } : { ok: false, error: reason, stats: outcome.stats }
  }

  /**
   * Raises the run's stop flag and orders it to stop. A run that has not reported `stopGraceMs`
   * later (guest code inside one long native call, where no interrupt check comes) is resolved
   * with its stop reason at once; if its far side still has not reported it `killGraceMs` after
   * that, the far side is stuck and is ended.
   */
  private stopRun(runId: number, error: RunError): void {
    const run = this.runs.get(runId)
    if (run === undefined || run.stopReason !== undefined) return
    run.stopReason = error
    if (this.transport.flags !== undefined) raiseStop(this.transport.flags, run.slot)
    this.post(['stop', runId, error.code, error.message])
    run.timer = setTimeout(() => {
      if (this.runs.get(runId) !== run) return
      run.resolved = true
      // A session whose run was stopped from outside is not kept (BackendSession's rule).
      if (run.sessionId !== 0) this.sessions.get(run.sessionId)?.setAlive(false)
      run.resolve({ ok: false, error })
      run.timer = setTimeout(() => {
        if (this.runs.get(runId) !== run) return
        this.options.kill({
          code: 'BACKEND_CRASHED',
          message: this.options.label + ' was ended because another run in it did not stop in time',
        })
      }, this.options.killGraceMs)
    }, this.options.stopGraceMs)
  }

  private finish(runId: number, outcome: ExecuteOutcome): void {
    const run = this.runs.get(runId)
    if (run === undefined) return
    this.runs.delete(runId)
    this.slots[run.slot] = false
    run.stopWatch()
    if (run.timer !== undefined) clearTimeout(run.timer)
    if (!run.resolved) run.resolve(outcome)
    this.options.onLoad?.()
  }

  private ask<T>(pending: Map<number, Pending<T>>, id: number, order: Order): Promise<T> {
    if (this.lostError !== undefined) return Promise.reject(new SandboxError(this.lostError.code, this.lostError.message))
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve, reject })
      this.options.onLoad?.()
      this.post(order)
    })
  }

  private answer<T>(pending: Map<number, Pending<T>>, id: number, value: T): string | undefined {
    const waiting = pending.get(id)
    if (waiting === undefined) return 'an answer nobody asked for'
    pending.delete(id)
    waiting.resolve(value)
    this.options.onLoad?.()
    return undefined
  }

  private breach(problem: string): void {
    this.options.kill({ code: 'BACKEND_CRASHED', message: this.options.label + ' broke the channel protocol: ' + problem })
  }

  private post(order: Order): void {
    if (this.lostError !== undefined) return
    this.outbox.push(order)
    if (this.flushQueued) return
    this.flushQueued = true
    queueMicrotask(() => {
      this.flushQueued = false
      const batch = this.outbox
      this.outbox = []
      if (batch.length > 0 && this.lostError === undefined) this.transport.send(batch)
    })
  }
}

/** A session on the far side: a BackendSession whose runs may be named in the far side's logs. */
export interface ChannelBackendSession extends BackendSession {
  execute(request: ExecuteRequest, ref?: string): Promise<ExecuteOutcome>
}

/** A session on the far side, as the host's core sees it. */
class ChannelSession implements ChannelBackendSession {
  private isAlive = true
  private disposed = false

  constructor(
    private readonly client: ChannelClient,
    private readonly sessionId: number,
  ) {}

  get alive(): boolean {
    return this.isAlive && !this.disposed && !this.client.lost
  }

  execute(request: ExecuteRequest, ref?: string): Promise<ExecuteOutcome> {
    if (!this.alive)
      return Promise.resolve({ ok: false, error: { code: 'BACKEND_CRASHED', message: 'the session has no engine any more' } })
    return this.client.execute(request, this.sessionId, ref)
  }

  memoryUsage(): Promise<number> {
    return this.client.usage(this.sessionId)
  }

  async dispose(): Promise<void> {
    if (this.disposed) return
    this.disposed = true
    const stopped = this.client.stopSessionRun(this.sessionId, { code: 'ABORTED', message: 'the session was disposed' })
    const closed = this.client.close(this.sessionId)
    // A run stuck in native code resolves at its stop grace, and its far side is ended on its
    // own schedule: dispose waits for the close only as long as for that run.
    await (stopped === undefined ? closed : Promise.race([closed, stopped]))
  }

  /** @internal */ setAlive(alive: boolean): void {
    this.isAlive = alive
  }
}
