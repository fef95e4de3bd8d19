/** What `ctx.interrupt(payload)` returns: a tool returns it to pause the run. Opaque to users. */
export interface ToolInterrupt {
  readonly kind: 'cordon.interrupt'
}

/** Interrupts made by one run's contexts, so no value a tool makes up can pass for one. */
export class InterruptRegistry {
  private readonly made = new WeakMap<object, unknown>()

  make(payload: unknown): ToolInterrupt {
    const interrupt: ToolInterrupt = Object.freeze({ kind: 'cordon.interrupt' })
    this.made.set(interrupt, payload)
    return interrupt
  }

  /** The payload when `value` is one of ours; `found` false otherwise. */
  read(value: unknown): { found: boolean; payload?: unknown } {
    if (typeof value !== 'object' || value === null || !this.made.has(value)) return { found: false }
    return { found: true, payload: this.made.get(value) }
  }
}
