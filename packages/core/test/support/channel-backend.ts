import {
  ChannelPool,
  serveBackend,
  type FarSideEvents,
  type FarSideLink,
  type SandboxBackend,
  type SyncReply,
} from '../../src/backend/index.js'

/**
 * A backend carried over the channel protocol to a far side in this same thread: every message is
 * structured-cloned and delivered on a later turn, as between threads. The far side is `inner`.
 * It shows the protocol carries the whole contract; synchronous tool calls are answered at once
 * (the near side runs inside the far side's blocking call, which only one thread allows).
 */
export function createChannelledBackend(inner: () => SandboxBackend, stopGraceMs = 200): SandboxBackend {
  const sample = inner()
  void sample.dispose()
  const pool = new ChannelPool({
    label: 'in-thread far side',
    start: (events) => linkInThread(inner(), events),
    maxSides: 2,
    minSides: 1,
    idleMs: 1_000,
    maxChars: 2 ** 30,
    stopGraceMs,
    killGraceMs: 1_000,
  })
  return {
    specificationVersion: 'v1',
    name: sample.name + '-over-channel',
    capabilities: sample.capabilities,
    execute: (request) => pool.execute(request),
    openSession: sample.openSession === undefined ? undefined : (request) => pool.openSession(request.memoryMb),
    dispose: () => {
      pool.dispose({ code: 'ABORTED', message: 'the backend was disposed' })
      return Promise.resolve()
    },
  }
}

/** A far side in this thread serving `backend`, linked to a pool's `events`. */
export function linkInThread(backend: SandboxBackend, events: FarSideEvents): FarSideLink {
  let alive = true
  const toNear: unknown[] = []
  const drain = () => {
    while (alive && toNear.length > 0) events.receive(toNear.shift())
  }
  let reply: SyncReply | undefined
  const served = serveBackend(backend, {
    send(batch) {
      toNear.push(structuredClone(batch))
      setImmediate(drain)
    },
    callSync(report) {
      drain()
      reply = undefined
      events.receive([structuredClone(report)])
      return reply
    },
  })
  return {
    transport: {
      send(batch) {
        const copy = structuredClone(batch)
        setImmediate(() => alive && served.receive(copy))
      },
      replySync(answer) {
        reply = structuredClone(answer)
      },
    },
    kill() {
      if (!alive) return
      alive = false
      void backend.dispose()
      setImmediate(() => events.lost({ code: 'BACKEND_CRASHED', message: 'the far side was ended' }))
    },
    hold() {},
  }
}
