/**
 * The guest inside the child: a fresh vm context with its own microtask queue, the guest
 * runtime evaluated in it, and the host half of the guest protocol, which turns the
 * runtime's calls into frames for the parent. Prepared before the run (while the child
 * waits in the pool) and used for exactly one run — or, once the host switched it to
 * session mode, for one run after another: the runtime is made once, `install` starts each
 * run, and the context (the guest's globals) carries over.
 */
import vm from 'node:vm'
import type { InitMessage, RunMessage } from '../messages.js'
import { BRIDGE_FILENAME, BRIDGE_SOURCE, RUNTIME_FILENAME } from '../guest/bridge-source.js'
import { memoryVerdict, offHeapOverBudget } from './memory-check.js'
import { installAllocationGuard } from './allocation-guard.js'
import { capErrorPayload } from './error-payload.js'
import { describeSyntaxError } from './syntax-error.js'

/** What a synchronous tool call outside a run gets (core's RUN_ENDED_REPLY; the child bundles no core). */
const RUN_ENDED_REPLY = '{"ok":false,"message":"the run has ended"}'

export interface ChildOutput {
  send(message: unknown[]): void
  /** Sends a synchronous tool call and blocks until the host's reply (the runtime's `callSync` text). */
  callSync(name: string, args: string): string
  /** Ends the child process now (frames already sent are flushed: stdout is a blocking pipe). */
  exit(code: number): void
}

interface Bridge {
  /** Engine work (an async wasm compile, a waitAsync) still to settle a guest promise. */
  held(): number
  schedule(fn: unknown, a?: unknown, b?: unknown, c?: unknown): void
  wrapHost(dispatch: (kind: string, a: unknown, b: unknown, c: unknown) => unknown): unknown
}

interface Runtime {
  install(setup: string): void
  start: unknown
  settle: unknown
  fire: unknown
  stall: unknown
  flushLogs(): void
}

interface RunState {
  readonly job: RunMessage
  readonly cpuStart: NodeJS.CpuUsage
  readonly timers: Map<number, NodeJS.Timeout>
  tick: NodeJS.Timeout | undefined
  finished: boolean
  /** When the off-heap memory was last checked (performance.now()). */
  checkedAt: number
  /** Async tool calls sent to the host and not answered yet. */
  calls: number
  /** The runtime's `stall` is asked or queued; cleared when a tool result or timer comes in. */
  stallAsked: boolean
}

const DRAIN = new vm.Script('0', { filename: 'cordon-drain.js' })
/**
 * Some guest promises are settled by the child itself, outside any drain (an async
 * WebAssembly compile, a refused `import()` on newer Node): their reactions wait in the
 * context's queue until the next drain. While a run is going, drain at least this often.
 */
const DRAIN_TICK_MS = 10
/**
 * `process.memoryUsage()` reads /proc (~15 µs, a tenth of a tool call's whole cost in the child),
 * so after tool results the off-heap check runs at most this often; every other drain, the tick
 * and the end of the run check always.
 */
const TOOL_RESULT_CHECK_MS = 5

export interface PreparedGuest {
  run(job: RunMessage): void
  settle(id: number, ok: boolean, payload: string): void
  /** Session mode: later runs may follow this one's `done`. Only before the first run. */
  keep(): void
  /** Session mode, between runs: reports the child's heap in use. */
  usage(): void
}

export function prepareGuest(init: InitMessage, out: ChildOutput): PreparedGuest {
  // A null-prototype sandbox: with a plain `{}`, `this.constructor.constructor` in the guest
  // would reach the child's own Function through the sandbox's prototype chain.
  const sandbox: object = init.exposeProcess ? { escapedProcess: process } : (Object.create(null) as object)
  const context = vm.createContext(sandbox, { name: 'cordon guest', microtaskMode: 'afterEvaluate' })
  // The guest realm's built-ins, captured before any guest code exists; the bridge and the
  // allocation guard take theirs from here (the runtime captures its own when it is made).
  const primordials: unknown = vm.runInContext(init.primordials, context, { filename: BRIDGE_FILENAME })
  const bridge = (vm.runInContext(BRIDGE_SOURCE, context, { filename: BRIDGE_FILENAME }) as (p: unknown) => Bridge)(primordials)
  // Before the runtime, so the runtime's own allocations are guarded too.
  installAllocationGuard(context, primordials, allocationFailed)
  const factory = vm.runInContext(init.runtime, context, { filename: RUNTIME_FILENAME }) as (host: unknown) => Runtime
  let state: RunState | undefined
  let session = false
  const runtime = factory(bridge.wrapHost(dispatch))

  function dispatch(kind: string, a: unknown, b: unknown, c: unknown): unknown {
    if (state === undefined || state.finished) return kind === 'call-sync' ? RUN_ENDED_REPLY : undefined
    if (kind === 'call-sync') return out.callSync(String(a), String(b))
    if (kind === 'log') {
      // An empty batch is the runtime's "read what I stored": here every entry was sent already.
      if (typeof a === 'string' && a !== '') out.send(['log', a])
    } else if (kind === 'call') {
      if (Number.isSafeInteger(a) && typeof b === 'string' && typeof c === 'string') {
        state.calls++
        out.send(['call', a, b, c])
      }
    } else if (kind === 'timer') {
      if (typeof a === 'number' && typeof b === 'number') setTimer(state, a, b)
    } else if (kind === 'done') {
      finish(state, String(a), String(b), Number(c) || 0)
    }
  }

  /**
   * A failed allocation holds no memory, so no later checkpoint would notice it: end the run
   * now, from inside the guest's evaluation, before the guest can catch the error and go on.
   */
  function allocationFailed(message: string): void {
    if (state === undefined || state.finished) return
    stopRun(state)
    out.send(['limit', 'MEMORY_LIMIT', `the guest ran out of memory: ${message}`])
    out.exit(0)
  }

  function setTimer(run: RunState, id: number, delayMs: number): void {
    const existing = run.timers.get(id)
    if (existing !== undefined) clearTimeout(existing)
    run.timers.delete(id)
    if (delayMs < 0) return
    const handle = setTimeout(() => {
      run.timers.delete(id)
      if (run.finished) return
      run.stallAsked = false
      bridge.schedule(runtime.fire, id)
      drain(run)
    }, delayMs)
    run.timers.set(id, handle)
  }

  function stopRun(run: RunState): void {
    run.finished = true
    clearInterval(run.tick)
    for (const handle of run.timers.values()) clearTimeout(handle)
    run.timers.clear()
  }

  function finish(run: RunState, status: string, payload: string, logsDropped: number): void {
    stopRun(run)
    const usage = process.memoryUsage()
    const memory = memoryVerdict(usage, run.job.memoryBytes, status, payload)
    if (memory !== undefined) {
      out.send(['limit', 'MEMORY_LIMIT', memory])
      out.exit(0)
      return
    }
    const cpu = process.cpuUsage(run.cpuStart)
    const sent = status === 'error' ? capErrorPayload(payload, run.job.maxErrorChars) : payload
    out.send(['done', status, sent, logsDropped, (cpu.user + cpu.system) / 1000, usage.heapUsed])
  }

  function timeUp(): void {
    // The guest batches console entries per turn; the turn the deadline cut short sends its own
    // now (runtime code only: no guest code runs outside a timed evaluation).
    try {
      runtime.flushLogs()
    } catch {
      // Whatever it could not send is lost with the run.
    }
    out.send(['limit', 'TIMEOUT', 'the guest ran past its deadline'])
    out.exit(0)
  }

  /**
   * Runs the context's queued jobs under a vm timeout that ends at the run's deadline, then
   * checks the off-heap memory. After a tool result (`toolResult`) both are lighter, because
   * they would be paid on every call: no vm timeout (it starts a watchdog thread, which made
   * each call cost several times the round trip; the host's SIGKILL at the deadline stops a
   * guest that runs away all the same), and the memory check at most every
   * TOOL_RESULT_CHECK_MS.
   */
  function drain(run: RunState, { toolResult = false } = {}): void {
    if (run.finished) return
    const remaining = run.job.deadline - Date.now()
    if (remaining <= 0) return timeUp()
    try {
      if (toolResult) DRAIN.runInContext(context)
      else DRAIN.runInContext(context, { timeout: Math.ceil(remaining) })
    } catch (error) {
      if ((error as { code?: unknown })?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return timeUp()
      throw error
    }
    askStall(run)
    const now = performance.now()
    if (run.finished || (toolResult && now - run.checkedAt < TOOL_RESULT_CHECK_MS)) return
    run.checkedAt = now
    if (offHeapOverBudget(run.job.memoryBytes)) {
      out.send(['limit', 'MEMORY_LIMIT', `the guest holds more than ${run.job.memoryBytes} bytes of ArrayBuffers`])
      out.exit(0)
    }
  }

  /** Nothing of the host or the engine can wake the guest: no tool call, timer or engine work pending. */
  function idle(run: RunState): boolean {
    return !run.finished && run.calls === 0 && run.timers.size === 0 && bridge.held() === 0
  }

  /**
   * After a drain, the guest's queue is empty. If it is idle too, its program waits for what
   * nothing can settle: on the next turn (the child settles some guest promises itself, a
   * refused `import()`, whose reactions a drain then runs), if still idle, the runtime's `stall`
   * ends the run DEADLOCK.
   */
  function askStall(run: RunState): void {
    if (run.stallAsked || !idle(run)) return
    run.stallAsked = true
    setImmediate(() => {
      drain(run)
      if (!idle(run)) {
        run.stallAsked = false
        return
      }
      bridge.schedule(runtime.stall)
      drain(run)
    })
  }

  return {
    run(job) {
      // A one-off guest runs once; a session's runs come one after another, never overlapping.
      if (state !== undefined && !(session && state.finished)) {
        throw new Error(session ? 'a run was sent before the last one finished' : 'a prepared guest runs only once')
      }
      const run: RunState = {
        job,
        cpuStart: process.cpuUsage(),
        timers: new Map(),
        tick: undefined,
        finished: false,
        checkedAt: 0,
        calls: 0,
        stallAsked: false,
      }
      state = run
      try {
        runtime.install(job.setup)
      } catch (error) {
        out.send(['fail', `the guest runtime rejected its setup: ${(error as Error)?.message ?? String(error)}`])
        return
      }
      let script: vm.Script
      try {
        script = new vm.Script(job.script, { filename: job.filename })
      } catch (error) {
        stopRun(run)
        out.send(describeSyntaxError(error, job.filename))
        return
      }
      // The script is core's normalized program: one function expression, so evaluating it runs
      // no guest code and needs no vm timeout (whose watchdog thread costs milliseconds on a
      // busy machine). The guest's code runs in `drain`, under the timeout.
      let main: unknown
      try {
        main = script.runInContext(context)
      } catch (error) {
        out.send(['fail', `the compiled program did not evaluate: ${(error as Error)?.message ?? String(error)}`])
        return
      }
      bridge.schedule(runtime.start, main)
      drain(run)
      if (!run.finished) run.tick = setInterval(() => drain(run), DRAIN_TICK_MS)
    },
    settle(id, ok, payload) {
      if (state === undefined || state.finished) return
      if (state.calls > 0) state.calls--
      state.stallAsked = false
      bridge.schedule(runtime.settle, id, ok, payload)
      drain(state, { toolResult: true })
    },
    keep() {
      if (state !== undefined || session) throw new Error('session mode was asked for after the first run')
      session = true
    },
    usage() {
      if (!session || (state !== undefined && !state.finished)) throw new Error('a usage query outside the pause between session runs')
      out.send(['usage', process.memoryUsage().heapUsed])
    },
  }
}
