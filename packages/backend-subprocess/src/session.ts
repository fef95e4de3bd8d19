/**
 * A session: one child process, taken from the warm pool when the session opens and kept
 * until it ends, running one program after another in the same guest context.
 *
 * Each run is checked exactly like a one-off run (run.ts: tool names, fresh call
 * ids, message counts, frame caps, deadline, abort, memory watchdog). A run that ends by
 * itself keeps the child; every other end kills it, and so does any frame the child sends
 * between runs (guest-child.ts). A killed or dead child makes `alive` false for good.
 *
 * Between runs the child is unreferenced, like a warm spare: an open session does not keep
 * the host process alive. If the host goes away the child follows it (stdin closes, its
 * parent changes, or `pdeathsig`), and `dispose()` of the backend kills it with the pool.
 */
import { SandboxError } from '@cordon/core'
import { stopError, type BackendSession, type ExecuteOutcome, type ExecuteRequest } from '@cordon/core/backend'
import type { GuestChild } from './guest-child.js'
import { runOnChild } from './run.js'

/** How long an idle session child may take to report its heap before it counts as hung. */
const USAGE_TIMEOUT_MS = 5_000

export class ChildSession implements BackendSession {
  private running: Promise<ExecuteOutcome> | undefined
  private disposed = false
  private lastHeapBytes = 0
  /** Every tool name a run of this session was granted (see run.ts). */
  private readonly formerTools = new Set<string>()

  constructor(
    private readonly child: GuestChild,
    private readonly memoryCheckMs: number,
  ) {
    child.setRef(false)
    child.send(['session'])
  }

  get alive(): boolean {
    return !this.disposed && this.child.alive
  }

  async execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    if (!this.alive) return gone(this.disposed ? 'the session was disposed' : `the session's child process is gone`)
    if (this.running !== undefined) {
      // Core never overlaps runs of one session; two at once would share one guest.
      this.child.kill()
      return { ok: false, error: { code: 'INTERNAL', message: 'a session run was started while another was running' } }
    }
    if (request.signal.aborted || Date.now() >= request.deadline) {
      this.child.kill()
      return { ok: false, error: stopError(request) }
    }
    this.child.setRef(true)
    const run = runOnChild(this.child, request, this.memoryCheckMs, { formerTools: this.formerTools })
    for (const tool of request.tools) this.formerTools.add(tool.name)
    this.running = run
    try {
      const outcome = await run
      const heapBytes = outcome.stats?.heapBytes
      if (typeof heapBytes === 'number') this.lastHeapBytes = heapBytes
      return outcome
    } finally {
      this.running = undefined
      this.child.setRef(false)
    }
  }

  /**
   * The child's V8 heap in use (`process.memoryUsage().heapUsed`, the guest's context plus
   * the child's own few MB), asked from the child between runs. During a run the child is
   * busy with the guest, so the figure it reported at the end of the last run is returned.
   */
  async memoryUsage(): Promise<number> {
    if (!this.alive) throw new SandboxError('BACKEND_CRASHED', `the session's child process is gone`)
    if (this.running !== undefined) return this.lastHeapBytes
    try {
      this.lastHeapBytes = await this.child.queryHeap(USAGE_TIMEOUT_MS)
    } catch (error) {
      throw new SandboxError('BACKEND_CRASHED', `could not read the session's memory: ${(error as Error).message}`, { cause: error })
    }
    return this.lastHeapBytes
  }

  /** Kills the child (a run in flight ends at once) and waits until it is gone. */
  async dispose(): Promise<void> {
    this.disposed = true
    this.child.setRef(true)
    this.child.kill()
    await this.child.closed
  }
}

function gone(message: string): ExecuteOutcome {
  return { ok: false, error: { code: 'BACKEND_CRASHED', message } }
}
