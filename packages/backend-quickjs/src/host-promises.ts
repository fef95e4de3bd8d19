import type { EngineContext, EngineDeferred } from './engine-api.js'

/**
 * The promises of async tool calls, made on the host (RelayFunctions.callPromise): the guest gets
 * a promise of its own realm and the host keeps the resolving functions, so a call costs the guest
 * no record of its own and its answer no lookup in interpreted code. One per engine; a run settles
 * or drops the ones its calls made (`take`), and whatever is left when it ends is freed.
 */
export class HostPromises {
  private readonly pending = new Map<number, EngineDeferred>()
  private nextId = 1

  constructor(private readonly context: EngineContext) {}

  /** A new promise: its id (for the relay's `call`) and the deferred whose handle goes to the guest. */
  make(): { id: number; deferred: EngineDeferred } {
    const id = this.nextId++
    const deferred = this.context.newPromise()
    this.pending.set(id, deferred)
    return { id, deferred }
  }

  /** The deferred of call `id`, now the caller's to settle and dispose; undefined if already taken. */
  take(id: number): EngineDeferred | undefined {
    const deferred = this.pending.get(id)
    if (deferred !== undefined) this.pending.delete(id)
    return deferred
  }

  /** Frees every promise still pending: their calls will never be answered (the run is over). */
  dropAll(): void {
    for (const deferred of this.pending.values()) if (deferred.alive) deferred.dispose()
    this.pending.clear()
  }
}
