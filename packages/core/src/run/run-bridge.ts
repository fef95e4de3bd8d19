import { SandboxError } from '../errors.js'
import { toolFailureError, toolFailureOf } from '../tool-failure.js'
import type { ResolvedLimits } from '../limits.js'
import type { ToolBridge } from '../backend/v1/sandbox-backend.js'
import { decodeValue, encodeValue, isLimitMarker, utf8Length } from '../wire.js'
import { LogCollector } from './log-collector.js'
import type { EventStream } from './event-stream.js'
import type { ToolEndEvent, ToolErrorReason, ToolStartEvent } from '../run-events.js'
import type { ToolDefinition } from '../options.js'
import type { ToolRegistry } from '../tools/tool-registry.js'
import type { Validate } from '../tool-schema/schema-validator.js'
import type { Arrival } from '../durable/run-ledger.js'
import { RunPaused, guestErrorFrom, type RunPauses } from '../durable/run-pauses.js'

/** Where a run's tool and log events go, when the host listens (`onEvent`). */
export interface BridgeEvents {
  stream: EventStream
  /** `includeToolValuesInEvents`: put the arguments and results in the tool events. */
  includeValues: boolean
}

/** A call that has had its `tool-start` event and not yet its end. */
interface PendingCall {
  id: number
  tool: string
  startedPerf: number
}

/** A tool's own timeoutMs passed (reported as `timeout`, not `threw`). */
/** The name is the one web platforms give a timeout (AbortSignal.timeout's DOMException): guests can test it. */
class ToolTimeoutError extends Error {
  override name = 'TimeoutError'
}

/**
 * The per-run ToolBridge: every input comes from the guest (or a backend that may be
 * compromised) and is checked here, on the host: counts, sizes, schemas.
 */
export class RunBridge implements ToolBridge {
  readonly logs: LogCollector
  toolCalls = 0
  private active = 0
  private readonly queue: (() => void)[] = []
  private callSeq = 0
  private readonly pending = new Map<number, PendingCall>()

  /**
   * `signal` ends the run (no new call starts once it aborts); `toolSignal` is what tools see: it
   * aborts with it, except when the run paused, so calls already running can finish and be recorded.
   */
  constructor(
    private readonly registry: ToolRegistry,
    private readonly validators: ReadonlyMap<string, Validate>,
    private readonly limits: ResolvedLimits,
    private readonly signal: AbortSignal,
    private readonly stop: (error: SandboxError) => void,
    private readonly pauses: RunPauses,
    private readonly toolSignal: AbortSignal,
    private readonly events?: BridgeEvents,
  ) {
    const stream = events?.stream
    this.logs = new LogCollector(
      limits.maxLogEntries,
      limits.maxLogBytes,
      stream &&
        ((entry) =>
          stream.emit({
            type: 'log',
            level: entry.level,
            message: entry.message,
            ...(entry.args === undefined ? {} : { args: entry.args }),
          })),
    )
  }

  /**
   * Entries the guest wrote before it was stopped may reach the host a little after the stop
   * (a child's pipe is read after the deadline timer fires): they are kept until the result is
   * built, when the collector closes.
   */
  log(level: unknown, message: unknown, args?: unknown): void {
    this.logs.add(level, message, args)
  }

  /**
   * Every call to one of the run's tools gets its `tool-start` here, as it reaches the host, and
   * exactly one end: `ended`, `failed`, or `endPendingCalls` when the run ends first.
   */
  private begin(name: unknown, argsWire: unknown): PendingCall | undefined {
    if (this.signal.aborted) throw new Error('the run has ended')
    if (this.events === undefined || typeof name !== 'string' || !this.registry.byName.has(name)) return undefined
    const call: PendingCall = { id: ++this.callSeq, tool: name, startedPerf: performance.now() }
    this.pending.set(call.id, call)
    const argsBytes = typeof argsWire === 'string' ? utf8Length(argsWire) : 0
    const event: Omit<ToolStartEvent, 'atMs'> = { type: 'tool-start', callId: call.id, tool: name, argsBytes }
    // Arguments over maxOutputBytes are refused unread; they are not decoded for the event either.
    if (this.events.includeValues && typeof argsWire === 'string' && argsBytes <= this.limits.maxOutputBytes) {
      try {
        event.args = decodeValue(argsWire)
      } catch {
        // Malformed arguments are refused below; the event goes without them.
      }
    }
    this.events.stream.emit(event)
    return call
  }

  private ended(call: PendingCall | undefined, resultWire: string): void {
    if (call === undefined || !this.pending.delete(call.id)) return
    const event: Omit<ToolEndEvent, 'atMs'> = {
      type: 'tool-end',
      callId: call.id,
      tool: call.tool,
      durationMs: since(call.startedPerf),
      resultBytes: utf8Length(resultWire),
    }
    if (this.events!.includeValues) {
      try {
        event.result = decodeValue(resultWire)
      } catch {
        // Host-encoded text always decodes; were it not to, the event goes without the value.
      }
    }
    this.events!.stream.emit(event)
  }

  private failed(call: PendingCall | undefined, reason: ToolErrorReason, error: unknown): void {
    if (call === undefined || !this.pending.delete(call.id)) return
    this.events!.stream.emit({
      type: 'tool-error',
      callId: call.id,
      tool: call.tool,
      durationMs: since(call.startedPerf),
      reason,
      error: toolFailureOf(error),
    })
  }

  /** The run is over: each call still pending gets its `run-ended` event now (its answer will be dropped). */
  endPendingCalls(why: string): void {
    for (const call of [...this.pending.values()]) this.failed(call, 'run-ended', new Error(why))
  }

  private admit(name: unknown, argsWire: unknown): { name: string; args: unknown } {
    this.toolCalls++
    if (this.toolCalls > this.limits.maxToolCalls) {
      const error = new SandboxError('TOOL_CALL_LIMIT', `more than maxToolCalls (${this.limits.maxToolCalls}) tool calls`)
      this.stop(error)
      throw error
    }
    if (typeof name !== 'string' || !this.registry.byName.has(name)) throw new Error(`unknown tool ${String(name)}`)
    if (typeof argsWire !== 'string') throw new TypeError('malformed tool arguments')
    if (argsWire.length > this.limits.maxOutputBytes || utf8Length(argsWire) > this.limits.maxOutputBytes) {
      const error = new SandboxError(
        'OUTPUT_LIMIT',
        `arguments of tool ${name} are larger than maxOutputBytes (${this.limits.maxOutputBytes} bytes)`,
      )
      this.stop(error)
      throw error
    }
    let args: unknown
    try {
      args = decodeValue(argsWire)
    } catch {
      throw new TypeError(`malformed arguments for tool ${name}`)
    }
    return { name, args }
  }

  private validated(name: string, args: unknown): unknown {
    const validate = this.validators.get(name)
    if (validate === undefined) return args
    // Tools with a schema take an object; a call without arguments is checked as `{}`.
    const input = args === undefined ? {} : args
    const problem = validate(input)
    if (problem !== undefined) throw new TypeError(`Invalid arguments for tool ${name}: ${problem}`)
    return input
  }

  private encodeResult(name: string, value: unknown): string {
    try {
      // A tool result only has to fit in the guest's memory, which the engine enforces.
      return encodeValue(value, this.limits.memoryMb * 1024 * 1024, `the result of tool ${name}`)
    } catch (error) {
      if (isLimitMarker(error)) throw new Error(`the result of tool ${name} is too large for the sandbox`, { cause: error })
      throw new Error(
        `tool ${name} returned ${(error as Error).message.replace(/^.*?\(at /, 'a value that cannot enter the sandbox (at ')}`,
        { cause: error },
      )
    }
  }

  async callTool(rawName: string, argsWire: string): Promise<string> {
    const call = this.begin(rawName, argsWire)
    let reason: ToolErrorReason = 'refused'
    try {
      const { name, args } = this.admit(rawName, argsWire)
      const input = this.validated(name, args)
      const arrival = this.pauses.arrive(name, argsWire)
      if (arrival?.kind === 'replayed') {
        await this.pauses.turn(arrival.slot)
        return this.replayed(call, arrival)
      }
      const slot = arrival?.slot
      // Awaited only when there is something to wait for: each await is a turn of the host's
      // microtask queue and a promise, on every call (W2 in apps/bench).
      const slotFreed = this.acquire()
      if (slotFreed !== undefined) await slotFreed
      try {
        if (this.signal.aborted) {
          reason = 'run-ended'
          throw new Error('the run has ended')
        }
        const tool = this.registry.byName.get(name)!
        reason = 'threw'
        const approval = arrival?.approved === true ? false : this.pauses.needsApproval(tool, input)
        if (approval === true || (approval !== false && (await approval))) {
          this.pauses.pause(slot, name, input, undefined, 'approval')
        }
        const tracked: unknown = this.pauses.track<unknown>(
          tool.timeoutMs === undefined
            ? tool.execute(input, this.pauses.context(name, this.toolSignal))
            : this.withTimeout(name, tool, input, tool.timeoutMs),
        )
        const value: unknown = tracked instanceof Promise ? await (tracked as Promise<unknown>) : tracked
        this.pauses.pauseIfInterrupt(slot, name, input, value)
        reason = 'invalid-result'
        const wire = this.encodeResult(name, value)
        this.pauses.record(slot, { wire })
        this.ended(call, wire)
        return wire
      } catch (error) {
        if (error instanceof RunPaused) throw error
        if (error instanceof ToolTimeoutError) reason = 'timeout'
        const guestError = toGuestError(error)
        if (reason !== 'run-ended') this.pauses.record(slot, { error: guestError })
        throw guestError
      } finally {
        this.release()
      }
    } catch (error) {
      if (error instanceof RunPaused) {
        // The guest's call never settles: the backend is stopping the guest, which must not run on.
        this.failed(call, 'run-ended', error)
        return new Promise<string>(() => {})
      }
      this.failed(call, reason, error)
      throw error
    }
  }

  private replayed(call: PendingCall | undefined, arrival: Arrival & { kind: 'replayed' }): string {
    this.pauses.delivered(arrival.slot)
    if (arrival.ok) {
      this.ended(call, arrival.wire)
      return arrival.wire
    }
    const error = guestErrorFrom(arrival.payload)
    this.failed(call, 'threw', error)
    throw error
  }

  /**
   * One call under the tool's own timeoutMs: its signal aborts when the run's does or when the
   * time is up, and then the guest's call rejects at once (a late answer is dropped).
   */
  private async withTimeout(name: string, tool: ToolDefinition, input: unknown, timeoutMs: number): Promise<unknown> {
    const call = new AbortController()
    const onRunStop = () => call.abort(this.toolSignal.reason)
    if (this.toolSignal.aborted) onRunStop()
    else this.toolSignal.addEventListener('abort', onRunStop, { once: true })
    let timer: ReturnType<typeof setTimeout> | undefined
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new ToolTimeoutError(`tool ${name} timed out after ${timeoutMs} ms`)
        call.abort(error)
        reject(error)
      }, timeoutMs)
    })
    try {
      return await Promise.race([Promise.resolve(tool.execute(input, this.pauses.context(name, call.signal))), expired])
    } finally {
      clearTimeout(timer)
      this.toolSignal.removeEventListener('abort', onRunStop)
    }
  }

  callToolSync(rawName: string, argsWire: string): string {
    const call = this.begin(rawName, argsWire)
    let reason: ToolErrorReason = 'refused'
    try {
      const { name, args } = this.admit(rawName, argsWire)
      const tool = this.registry.byName.get(name)!
      const input = this.validated(name, args)
      const arrival = this.pauses.arrive(name, argsWire)
      if (arrival?.kind === 'replayed') return this.replayed(call, arrival)
      const slot = arrival?.slot
      reason = 'threw'
      let value: unknown
      try {
        if (arrival?.approved !== true && this.pauses.needsApprovalSync(name, tool, input)) {
          this.pauses.pause(slot, name, input, undefined, 'approval')
        }
        value = tool.execute(input, this.pauses.context(name, this.toolSignal))
        this.pauses.pauseIfInterrupt(slot, name, input, value)
      } catch (error) {
        const guestError = toGuestError(error)
        if (!(error instanceof RunPaused)) this.pauses.record(slot, { error: guestError })
        throw guestError
      }
      reason = 'invalid-result'
      try {
        if (value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function') {
          throw new Error(`sync tool ${name} returned a promise; make execute synchronous or drop sync: true`)
        }
        const wire = this.encodeResult(name, value)
        this.pauses.record(slot, { wire })
        this.ended(call, wire)
        return wire
      } catch (error) {
        this.pauses.record(slot, { error: toGuestError(error) })
        throw error
      }
    } catch (error) {
      this.failed(call, reason, error)
      throw error
    }
  }

  /** Takes a slot under maxConcurrentToolCalls: undefined when one was free, else when one frees up. */
  private acquire(): Promise<void> | undefined {
    if (this.active < this.limits.maxConcurrentToolCalls) {
      this.active++
      return undefined
    }
    return new Promise((resolve) => this.queue.push(() => resolve()))
  }

  private release(): void {
    const next = this.queue.shift()
    if (next !== undefined) next()
    else this.active--
  }
}

function since(startedPerf: number): number {
  return Math.round((performance.now() - startedPerf) * 1000) / 1000
}

/** The guest sees a tool failure's name, message and code only: no host stack, no host error object. */
function toGuestError(error: unknown): Error {
  return toolFailureError(toolFailureOf(error))
}
