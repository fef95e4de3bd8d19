import { SandboxError } from '../errors.js'
import type { ResolvedLimits } from '../limits.js'
import type { ToolBridge } from '../backend/v1/sandbox-backend.js'
import { decodeValue, encodeValue, isLimitMarker, utf8Length } from '../wire.js'
import { LogCollector } from './log-collector.js'
import type { ToolDefinition } from '../options.js'
import type { ToolRegistry } from './tool-registry.js'
import type { Validate } from './schema-validator.js'

/**
 * The per-run ToolBridge: every input comes from the guest (or a backend that may be
 * compromised) and is checked here, on the host: counts, sizes, schemas.
 */
export class RunBridge implements ToolBridge {
  readonly logs: LogCollector
  toolCalls = 0
  private running = 0
  private readonly queue: (() => void)[] = []

  constructor(
    private readonly registry: ToolRegistry,
    private readonly validators: ReadonlyMap<string, Validate>,
    private readonly limits: ResolvedLimits,
    private readonly signal: AbortSignal,
    private readonly stop: (error: SandboxError) => void,
  ) {
    this.logs = new LogCollector(limits.maxLogEntries, limits.maxLogBytes)
  }

  /**
   * Entries the guest wrote before it was stopped may reach the host a little after the stop
   * (a child's pipe is read after the deadline timer fires): they are kept until the result is
   * built, when the collector closes.
   */
  log(level: unknown, message: unknown): void {
    this.logs.add(level, message)
  }

  private admit(name: unknown, argsWire: unknown): { name: string; args: unknown } {
    if (this.signal.aborted) throw new Error('the run has ended')
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
    const { name, args } = this.admit(rawName, argsWire)
    const input = this.validated(name, args)
    await this.acquire()
    try {
      if (this.signal.aborted) throw new Error('the run has ended')
      const tool = this.registry.byName.get(name)!
      const value =
        tool.timeoutMs === undefined
          ? await tool.execute(input, { signal: this.signal, name })
          : await this.withTimeout(name, tool, input, tool.timeoutMs)
      return this.encodeResult(name, value)
    } catch (error) {
      throw toGuestError(error)
    } finally {
      this.release()
    }
  }

  /**
   * One call under the tool's own timeoutMs: its signal aborts when the run's does or when the
   * time is up, and then the guest's call rejects at once (a late answer is dropped).
   */
  private async withTimeout(name: string, tool: ToolDefinition, input: unknown, timeoutMs: number): Promise<unknown> {
    const call = new AbortController()
    const onRunStop = () => call.abort(this.signal.reason)
    this.signal.addEventListener('abort', onRunStop, { once: true })
    let timer: ReturnType<typeof setTimeout> | undefined
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new Error(`tool ${name} timed out after ${timeoutMs} ms`)
        call.abort(error)
        reject(error)
      }, timeoutMs)
    })
    try {
      return await Promise.race([Promise.resolve(tool.execute(input, { signal: call.signal, name })), expired])
    } finally {
      clearTimeout(timer)
      this.signal.removeEventListener('abort', onRunStop)
    }
  }

  callToolSync(rawName: string, argsWire: string): string {
    const { name, args } = this.admit(rawName, argsWire)
    const tool = this.registry.byName.get(name)!
    const input = this.validated(name, args)
    let value: unknown
    try {
      value = tool.execute(input, { signal: this.signal, name })
    } catch (error) {
      throw toGuestError(error)
    }
    if (value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function') {
      throw new Error(`sync tool ${name} returned a promise; make execute synchronous or drop sync: true`)
    }
    return this.encodeResult(name, value)
  }

  private acquire(): Promise<void> {
    if (this.running < this.limits.maxConcurrentToolCalls) {
      this.running++
      return Promise.resolve()
    }
    return new Promise((resolve) => this.queue.push(() => resolve()))
  }

  private release(): void {
    const next = this.queue.shift()
    if (next !== undefined) next()
    else this.running--
  }
}

/** The guest sees a tool failure's message only: no host stack, no host error object. */
function toGuestError(error: unknown): Error {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : 'tool failed'
  return error instanceof TypeError ? new TypeError(message) : new Error(message)
}
