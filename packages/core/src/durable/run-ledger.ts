import { SandboxError } from '../errors.js'
import { toBase64Url } from './base64url.js'
import { sha256 } from './sha256.js'

/**
 * One tool call as recorded, in the order calls reached the host:
 * `[tool, argsDigest, 0, resultWire]`, `[tool, argsDigest, 1, errorPayload]`, or
 * `[tool, argsDigest, 2]` for a call with no outcome yet (the paused call, or one still running
 * when the run paused): a resume runs that one live.
 */
export type LedgerEntry = [string, string, 0, string] | [string, string, 1, string] | [string, string, 2]

/** What a resume gives the paused call: a value in wire format, or a rejection message. */
export type ResumeAnswer = { ok: true; wire: string } | { ok: false; message: string }

export interface ResumePoint {
  pausedAt: number
  /** The call paused for `needsApproval`: an answer approves it (the tool runs live). */
  approval: boolean
  answer: ResumeAnswer
}

/** What to do with a call that reached the host. */
export type Arrival =
  | { kind: 'replayed'; slot: number; ok: true; wire: string }
  | { kind: 'replayed'; slot: number; ok: false; payload: string }
  | { kind: 'live'; slot: number; approved: boolean }

/** 128 bits of SHA-256 of the arguments' wire text: enough to tell arguments apart, and short. */
export function argsDigest(argsWire: string): string {
  return toBase64Url(sha256(argsWire).subarray(0, 16))
}

function diverged(message: string): SandboxError {
  return new SandboxError('REPLAY_DIVERGED', `the resumed program diverged from the paused run: ${message}; no tool was called for it`)
}

/**
 * The ledger of a durable run. A first run records every call; a resumed run answers the
 * recorded calls from it (the tool is not called again), gives the paused call its answer, and
 * records what runs live after that, so that the run can pause again.
 */
export class RunLedger {
  readonly entries: LedgerEntry[] = []
  /** The slots in the order their outcomes reached the guest: a replay answers in this order. */
  readonly order: number[] = []
  /** The slot of the call that paused this run, once one did. */
  pausedAt: number | undefined
  /** Where each recorded slot is in the recorded order, and how far the replay has answered. */
  private readonly place = new Map<number, number>()
  private next = 0
  private readonly answered = new Set<number>()
  private readonly waiting = new Map<number, () => void>()

  constructor(
    private readonly recorded: readonly LedgerEntry[] = [],
    private readonly resume?: ResumePoint,
    private readonly recordedOrder: readonly number[] = [],
  ) {
    recordedOrder.forEach((slot, index) => this.place.set(slot, index))
  }

  /**
   * Resolves when a replayed call may be answered: after every call whose outcome reached the
   * guest before its own in the recorded run, so that `Promise.race` between tools replays alike.
   */
  turn(slot: number): Promise<void> | undefined {
    const place = this.place.get(slot)
    if (place === undefined || place <= this.next) return undefined // its turn, or not in the recorded order
    return new Promise((resolve) => this.waiting.set(slot, resolve))
  }

  /** A replayed (or answered) outcome went to the guest: the next one in the recorded order may go. */
  delivered(slot: number): void {
    this.order.push(slot)
    this.answered.add(slot)
    while (this.next < this.recordedOrder.length && this.answered.has(this.recordedOrder[this.next]!)) this.next++
    const following = this.recordedOrder[this.next]
    const wake = following === undefined ? undefined : this.waiting.get(following)
    if (wake !== undefined) {
      this.waiting.delete(following!)
      wake()
    }
  }

  /** Throws REPLAY_DIVERGED when the call is not the one recorded at its place. */
  arrive(tool: string, argsWire: string): Arrival {
    const slot = this.entries.length
    const digest = argsDigest(argsWire)
    const recorded = this.recorded[slot]
    if (recorded !== undefined) {
      if (recorded[0] !== tool) throw diverged(`call #${slot + 1} was to ${recorded[0]}, now it is to ${tool}`)
      if (recorded[1] !== digest) throw diverged(`call #${slot + 1} (${tool}) had other arguments`)
    }
    if (this.resume !== undefined && slot === this.resume.pausedAt) {
      const { answer, approval } = this.resume
      if (answer.ok && approval) {
        this.entries.push([tool, digest, 2])
        return { kind: 'live', slot, approved: true }
      }
      if (answer.ok) {
        this.entries.push([tool, digest, 0, answer.wire])
        return { kind: 'replayed', slot, ok: true, wire: answer.wire }
      }
      const payload = JSON.stringify({ message: answer.message })
      this.entries.push([tool, digest, 1, payload])
      return { kind: 'replayed', slot, ok: false, payload }
    }
    if (recorded !== undefined && recorded[2] !== 2) {
      this.entries.push(recorded)
      return recorded[2] === 0
        ? { kind: 'replayed', slot, ok: true, wire: recorded[3] }
        : { kind: 'replayed', slot, ok: false, payload: recorded[3] }
    }
    this.entries.push([tool, digest, 2])
    return { kind: 'live', slot, approved: false }
  }

  /** A live call's outcome. Calls that never finish (the run ended first) stay without one. */
  settle(slot: number, ok: boolean, text: string): void {
    const entry = this.entries[slot]
    if (entry === undefined || entry[2] !== 2 || slot === this.pausedAt) return
    this.entries[slot] = ok ? [entry[0], entry[1], 0, text] : [entry[0], entry[1], 1, text]
    this.order.push(slot)
  }

  /** Marks the call that pauses the run; false when another call paused it first. */
  pause(slot: number): boolean {
    if (this.pausedAt !== undefined) return false
    this.pausedAt = slot
    return true
  }

  /** Why a finished program diverged: it ended before making every recorded call. */
  unfinishedReplay(): SandboxError | undefined {
    if (this.entries.length >= this.recorded.length) return undefined
    return diverged(`it ended after ${this.entries.length} of the ${this.recorded.length} recorded tool calls`)
  }
}
