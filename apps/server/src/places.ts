/**
 * The server's capacity: a place is a run in flight or an open session, at most `maxRuns`.
 * Connections waiting for a run hold none, but a new connection is only accepted while a place
 * is free for it (counting the upgrades still in progress), so a load balancer can send a
 * refused one elsewhere before anything is sent.
 */
export class Places {
  private taken = 0
  private arriving = 0

  constructor(readonly max: number) {}

  /** Runs in flight and sessions open. */
  get inUse(): number {
    return this.taken
  }

  /** Whether a new connection may come in now; if so, it counts until `arrived()`. */
  admit(): boolean {
    if (this.taken + this.arriving >= this.max) return false
    this.arriving++
    return true
  }

  arrived(): void {
    this.arriving = Math.max(0, this.arriving - 1)
  }

  take(): boolean {
    if (this.taken >= this.max) return false
    this.taken++
    return true
  }

  give(): void {
    this.taken = Math.max(0, this.taken - 1)
  }
}
