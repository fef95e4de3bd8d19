import { SandboxError } from '../errors.js'
import { toolFailureError, toolFailureFromPayload, toolFailurePayload } from '../tool-failure.js'
import type { ToolContext, ToolDefinition } from '../options.js'
import { InterruptRegistry } from './interrupt.js'
import type { Arrival, RunLedger } from './run-ledger.js'

/**
 * Whether a run can pause: with a ledger it records every call (and, resumed, replays them);
 * without one, a tool that pauses ends the run with UNSUPPORTED and this message.
 */
export type PauseSupport = { ledger: RunLedger } | { refused: string }

/** The call that paused the run (`ctx.interrupt` or `needsApproval`). */
export interface PausedCall {
  tool: string
  args: unknown
  payload: unknown
  reason: 'interrupt' | 'approval'
}

/** Thrown through a paused call: the guest is being stopped, and the call never settles for it. */
export class RunPaused extends Error {}

/**
 * The durable side of one run's tool calls, for the RunBridge: each call's place in the ledger,
 * replayed answers, recorded outcomes, and the pause itself.
 */
export class RunPauses {
  paused: PausedCall | undefined
  private readonly interrupts = new InterruptRegistry()
  /** Tool functions still running: a paused run waits for them so their outcomes are recorded. */
  private readonly running = new Set<Promise<unknown>>()

  constructor(
    private readonly support: PauseSupport,
    private readonly stop: (error: SandboxError) => void,
  ) {}

  context(name: string, signal: AbortSignal): ToolContext {
    return { signal, name, interrupt: (payload?: unknown) => this.interrupts.make(payload) }
  }

  /** The ledger's word on a call that passed every check: replayed, or live at its slot. Ends the run on divergence. */
  arrive(name: string, argsWire: string): Arrival | undefined {
    if (!('ledger' in this.support)) return undefined
    try {
      return this.support.ledger.arrive(name, argsWire)
    } catch (error) {
      this.stop(error as SandboxError)
      throw error
    }
  }

  /** Resolves when a replayed call's answer may go to the guest (see RunLedger.turn). */
  turn(slot: number): Promise<void> | undefined {
    return 'ledger' in this.support ? this.support.ledger.turn(slot) : undefined
  }

  delivered(slot: number): void {
    if ('ledger' in this.support) this.support.ledger.delivered(slot)
  }

  /** A live call's outcome: its result's wire text, or the error the guest saw. */
  record(slot: number | undefined, outcome: { wire: string } | { error: Error }): void {
    if (slot === undefined || !('ledger' in this.support)) return
    if ('wire' in outcome) this.support.ledger.settle(slot, true, outcome.wire)
    else this.support.ledger.settle(slot, false, guestErrorPayload(outcome.error))
  }

  /** Whether the call waits for approval; a promise only when the tool's rule is a function. */
  needsApproval(tool: ToolDefinition, input: unknown): boolean | Promise<boolean> {
    const rule = tool.needsApproval
    if (typeof rule !== 'function') return rule === true
    return this.trackAsync(rule(input)).then((answer) => answer === true)
  }

  needsApprovalSync(name: string, tool: ToolDefinition, input: unknown): boolean {
    const rule = tool.needsApproval
    if (typeof rule !== 'function') return rule === true
    const answer = rule(input)
    if (typeof answer !== 'boolean') throw new Error(`needsApproval of sync tool ${name} must return a boolean`)
    return answer
  }

  /** Pauses the run when `value` is an interrupt this run's contexts made. */
  pauseIfInterrupt(slot: number | undefined, tool: string, args: unknown, value: unknown): void {
    const interrupt = this.interrupts.read(value)
    if (interrupt.found) this.pause(slot, tool, args, interrupt.payload, 'interrupt')
  }

  /** Ends the run as paused at this call (the first pause wins) and throws RunPaused. */
  pause(slot: number | undefined, tool: string, args: unknown, payload: unknown, reason: PausedCall['reason']): never {
    if (!('ledger' in this.support)) {
      const error = new SandboxError('UNSUPPORTED', `tool ${tool} paused the run, but ${this.support.refused}`)
      this.stop(error)
      throw new RunPaused(error.message)
    }
    if (slot !== undefined && this.support.ledger.pause(slot)) {
      this.paused = { tool, args, payload, reason }
      this.stop(new SandboxError('INTERRUPTED', `tool ${tool} paused the run${reason === 'approval' ? ' to ask for approval' : ''}`))
    }
    throw new RunPaused('the run paused')
  }

  /**
   * Keeps a tool's pending work in view until it settles (`toolsSettled`). A value that is not a
   * promise is already settled: it is handed back as it is, with no turn of the microtask queue.
   */
  track<T>(work: T | Promise<T>): T | Promise<T> {
    return work instanceof Promise || isThenable(work) ? this.trackAsync(work) : work
  }

  private async trackAsync<T>(work: T | Promise<T>): Promise<T> {
    const promise = Promise.resolve(work)
    this.running.add(promise)
    try {
      return await promise
    } finally {
      this.running.delete(promise)
    }
  }

  /** Resolves when every tool function still running has finished, or at `deadline` (ms since the epoch). */
  async toolsSettled(deadline: number): Promise<void> {
    if (this.running.size === 0) return
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([
      Promise.allSettled([...this.running]),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))
      }),
    ])
    clearTimeout(timer)
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function'
  )
}

/** A failure as the ledger keeps it: what the guest saw (see tool-failure.ts). */
function guestErrorPayload(error: Error): string {
  return toolFailurePayload(error)
}

/** A recorded failure, as the guest sees it again: the same name, message and code. */
export function guestErrorFrom(payload: string): Error {
  return toolFailureError(toolFailureFromPayload(payload))
}
