/**
 * A run's inspector across a channel (see the inspector orders and reports in
 * channel-protocol.ts): the far side hands its engine's InspectorHooks calls to the host, the
 * host's core drives the engine's sessions from its side. Only for far sides the host trusts
 * (its own workers and children): a server never takes these orders.
 */
import type { EngineInspector, EngineInspectorSession, InspectorHooks } from '../v1/inspector-hooks.js'
import type { InspectPhase, Order, Report } from './channel-protocol.js'

/** How long a stopped run's engine waits for the host before it goes (see FarInspector.wait). */
const STOPPED_END_WAIT_MS = 250

/** The host's end: the far engine's sessions, as the run's own InspectorHooks see an engine. */
export class NearInspector {
  private readonly sessions = new Map<number, (message: string) => void>()
  private nextId = 1

  constructor(
    private readonly hooks: InspectorHooks,
    private readonly runId: number,
    private readonly post: (order: Order) => void,
  ) {}

  attached(): void {
    this.hooks.attach({
      connect: (onMessage) => {
        const id = this.nextId++
        this.sessions.set(id, onMessage)
        this.post(['inspect-open', this.runId, id])
        return {
          dispatch: (message) => {
            if (this.sessions.has(id)) this.post(['inspect-send', this.runId, id, message])
          },
          disconnect: () => {
            if (this.sessions.delete(id)) this.post(['inspect-close', this.runId, id])
          },
        }
      },
    })
  }

  message(id: number, message: string): void {
    this.sessions.get(id)?.(message)
  }

  wait(phase: InspectPhase): void {
    const ready = phase === 'start' ? this.hooks.beforeStart() : this.hooks.beforeEnd()
    void ready.then(() => this.post(['inspect-go', this.runId, phase]))
  }
}

/** The far side's end: InspectorHooks for the engine that serves the run, relayed to the host. */
export class FarInspector {
  readonly hooks: InspectorHooks
  private engine: EngineInspector | undefined
  private readonly sessions = new Map<number, EngineInspectorSession>()
  private readonly waits = new Map<InspectPhase, () => void>()

  constructor(
    private readonly runId: number,
    private readonly queue: (report: Report) => void,
    private readonly signal: AbortSignal,
  ) {
    this.hooks = {
      attach: (engine) => {
        this.engine = engine
        queue(['inspect-attached', runId])
      },
      beforeStart: () => this.wait('start'),
      beforeEnd: () => this.wait('end'),
    }
  }

  /** An inspector order for this run. */
  receive(order: Order): void {
    switch (order[0]) {
      case 'inspect-open': {
        const id = order[2]
        const session = this.engine?.connect((message) => this.queue(['inspect-message', this.runId, id, message]))
        if (session !== undefined) this.sessions.set(id, session)
        return
      }
      case 'inspect-send':
        return this.sessions.get(order[2])?.dispatch(order[3])
      case 'inspect-close':
        this.sessions.get(order[2])?.disconnect()
        this.sessions.delete(order[2])
        return
      case 'inspect-go':
        this.waits.get(order[2])?.()
        this.waits.delete(order[2])
        return
      default:
        return
    }
  }

  /** The run is over: its sessions end (the engine's own disposal keeps isolated-vm's order). */
  end(): void {
    for (const session of this.sessions.values()) session.disconnect()
    this.sessions.clear()
    for (const go of this.waits.values()) go()
    this.waits.clear()
  }

  private wait(phase: InspectPhase): Promise<void> {
    return new Promise((resolve) => {
      // A stopped run still asks before its engine goes (its CPU profile is taken then), for a
      // short while at most; it never waits to start.
      const graceMs = phase === 'end' ? STOPPED_END_WAIT_MS : 0
      const stopped = () => (graceMs === 0 ? resolve() : setTimeout(resolve, graceMs))
      if (this.signal.aborted && graceMs === 0) return resolve()
      this.waits.set(phase, resolve)
      if (this.signal.aborted) stopped()
      else this.signal.addEventListener('abort', stopped, { once: true })
      this.queue(['inspect-wait', this.runId, phase])
    })
  }
}
