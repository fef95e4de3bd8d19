import type { ExecuteOutcome, RelaySwitch } from '@cordon/core/backend'
import type { FreshEngine } from './fresh-engine.js'
import type { GuestRuntimeHandles } from './guest-runtime.js'
import type { HostPromises } from './host-promises.js'

/** An engine whose guest runtime is made: what a run drives. */
export interface RunEngine {
  readonly fresh: FreshEngine
  readonly guest: GuestRuntimeHandles
  /** The host functions the guest runtime was made with; each run attaches its own host. */
  readonly relaySwitch: RelaySwitch
  /** The promises of the guest's async tool calls, kept on the host (see RelayFunctions.callPromise). */
  readonly promises: HostPromises
  /**
   * Worker mode: each run takes the guest's unsent console entries from inside the engine's
   * interrupt checks while guest code runs (see GuestRun.pullLogs), so that they leave the worker
   * even if it is starved or killed before the run's end.
   */
  readonly pullLogs: boolean
}

/** What the engine's callbacks (interrupt handler, host-function hooks) ask of the run in progress. */
export interface RunHooks {
  /** Called by QuickJS every few thousand operations; true stops the guest uncatchably. */
  shouldInterrupt(): boolean
  /** A host function failed for a reason that is not the guest's. */
  onHostFault(error: unknown): void
  /** Time spent in a host function while inside an engine call: not the guest's CPU. */
  onHostTime(ms: number): void
}

export interface RunEnd {
  outcome: ExecuteOutcome
  /** The run ended by itself, with no guest code cut off: the engine may serve the next run of a session. */
  reusable: boolean
  /** A host exception unwound WASM frames: QuickJS's C state is inconsistent, drop the instance whole. */
  broken: boolean
}
