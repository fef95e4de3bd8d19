import type { RunError } from '@cordon/core'
import {
  createGuestRelay,
  outcomeFromDone,
  stopError,
  watchStop,
  type BackendRunStats,
  type ExecuteOutcome,
  type ExecuteRequest,
} from '@cordon/core/backend'
import { compileError } from './compile-error.js'
import { engineFailure, memoryLimitError } from './engine-failure.js'
import type { GuestVm } from './guest-vm.js'
import { provesOverLimit, readHeap, sampleHeap, withinWait } from './heap-check.js'
import type { IvmHeapStatistics } from './ivm-types.js'
import { closeInspectorSessions, isolateInspector } from './engine-inspector.js'

/** Setup plus script up to this many characters are handed to the isolate synchronously. */
const SYNC_HANDOVER_MAX_CHARS = 64 * 1024

/**
 * After a stop disposes the isolate, the result waits up to this long for the calls into it to
 * return (the isolate's thread to unwind). A guest thread parked in a synchronous callback (a log
 * flush) needs one turn of the host's loop to be let go: a host that ends right after the result
 * (process.exit, an uncaught exception) would otherwise deadlock isolated-vm's exit handler,
 * which waits for that thread while it waits for the main thread.
 */
const UNWIND_WAIT_MS = 50

/**
 * A run with an inspector stopped from outside (deadline, abort) waits up to this long, guest
 * still running, for core to take its CPU profile: V8 answers the profiler between two steps of
 * the guest, in a few milliseconds. Under the engine children's stop grace (250 ms).
 */
const PROFILE_ON_STOP_MS = 200

/** isolated-vm's error when a synchronous call's `timeout` ended it. */
const TIMED_OUT = /timed out/i

/** A way to end a run from outside (the backend's or the session's dispose). */
export type RunStopper = (error: RunError) => void

/** Makes a run's stopper reachable while the run goes on; returns how to forget it. */
export type RegisterStopper = (stop: RunStopper) => () => void

export interface RunMode {
  /**
   * The isolate serves further runs (a session): after the guest reports its result, the run
   * waits until the isolate has returned from every call into it, still bounded by the deadline,
   * so that nothing of this run is executing when the next one starts. A single run skips the
   * wait: its isolate is disposed right after.
   */
  keep: boolean
  /**
   * Told as the run ends whether the isolate is idle: no call into it is still executing, so no
   * guest code can run in it again unless the host calls in. A single run then disposes it after
   * handing the result over rather than before (disposing takes ~0.5 ms).
   */
  onEnd?: (idle: boolean) => void
}

/**
 * Runs one program in a prepared isolate, following the guest protocol's order (install,
 * compile, start, then settle/fire until done). Never rejects. A run that ends by itself
 * (a value, a thrown error, a syntax error, a limit the guest enforces) leaves the isolate
 * as it is; the caller disposes it or keeps it. A run stopped from outside (deadline, abort,
 * dispose) or by the engine (memory limit, crash) disposes the isolate: that is also how it
 * is stopped, as disposing ends whatever it executes (loops, microtasks, Atomics.wait).
 */
export async function runInVm(vm: GuestVm, request: ExecuteRequest, register: RegisterStopper, mode: RunMode): Promise<ExecuteOutcome> {
  const memoryMb = vm.memoryMb
  const relay = createGuestRelay(request)
  let settled = false
  let resolveOutcome!: (outcome: ExecuteOutcome) => void
  const outcome = new Promise<ExecuteOutcome>((resolve) => {
    resolveOutcome = resolve
  })
  // This run's own CPU time: the isolate is idle now, so everything before is someone else's.
  const cpuStart = readCpuTime(vm)
  let cpuMs: number | undefined
  const readCpu = () => {
    const now = readCpuTime(vm)
    if (now !== undefined && cpuStart !== undefined) cpuMs = Number(now - cpuStart) / 1e6
  }
  // Calls into the isolate that have not returned yet, and who waits for them to be none.
  let inFlight = 0
  let onIdle: (() => void) | undefined
  let onUnwound: (() => void) | undefined
  const callReturned = () => {
    inFlight--
    if (inFlight === 0) {
      onIdle?.()
      onUnwound?.()
      askStall()
    }
  }
  const finish = (result: ExecuteOutcome) => {
    if (settled) return
    settled = true
    if (inFlight === 0 || !vm.isolate.isDisposed) return resolveOutcome(result)
    const timer = setTimeout(() => resolveOutcome(result), UNWIND_WAIT_MS)
    onUnwound = () => {
      clearTimeout(timer)
      resolveOutcome(result)
    }
  }
  // isolated-vm runs the isolate's microtasks before a call into it returns: with no call in
  // flight, the guest's job queue is empty. If nothing the host holds can wake it either, the
  // runtime is asked to end the run DEADLOCK, once until a tool result or timer enters again.
  let started = false
  let stallAsked = false
  const askStall = () => {
    if (!started || stallAsked || settled || !relay.stalled() || vm.isolate.isDisposed) return
    stallAsked = true
    track(vm.stall.apply(undefined, []))
  }
  const entered = (call: () => Promise<unknown>) => {
    stallAsked = false
    track(call())
  }
  const untilIdle = () =>
    new Promise<void>((resolve) => {
      if (inFlight === 0 || vm.isolate.isDisposed) resolve()
      else onIdle = resolve
    })

  let doneSeen = false
  // Taking a stopped run's profile (see PROFILE_ON_STOP_MS): no other ending counts meanwhile.
  let profiling = false
  const stop: RunStopper = (error) => {
    if (settled || profiling) return
    const inspector = request.inspector
    if (inspector !== undefined && started && !doneSeen && STOPS_FROM_OUTSIDE.has(error.code) && !vm.isolate.isDisposed) {
      profiling = true
      // What the guest logged up to the stop counts; from here nothing more reaches the guest, and
      // the guest reaches no host: the run is over for both.
      vm.drainLogs()
      relay.close()
      void withinMs(inspector.beforeEnd(), PROFILE_ON_STOP_MS).then(() => {
        profiling = false
        stopNow(error)
      })
      return
    }
    stopNow(error)
  }
  const stopNow: RunStopper = (error) => {
    if (settled) return
    if (doneSeen) {
      // The guest reported its result, but something of it was still executing: the result
      // stands (core's rule too), the isolate goes.
      vm.dispose()
      onIdle?.()
      return
    }
    readCpu()
    // Entries the guest stored but had no turn left to send (a loop, the memory limit) still count.
    vm.drainLogs()
    vm.dispose()
    finish({ ok: false, error, stats: cpuStats(cpuMs) })
  }
  // The runtime's start/settle/fire catch every guest error, so while the isolate lives, a
  // rejected call is isolated-vm reporting a promise the guest left rejected and unhandled.
  // Those are ignored, as the other backends do; a disposed isolate is the memory limit or a crash.
  const track = (call: Promise<unknown>) => {
    inFlight++
    call.then(callReturned, (error: unknown) => {
      if (vm.isolate.isDisposed) stop(engineFailure(error, memoryMb))
      callReturned()
    })
  }

  let allocationFailed = false
  vm.port.attach(relay, {
    // Both are called from inside the guest (a callback); disposing the isolate there is safe
    // and stops the guest before it can catch the RangeError and carry on.
    onAllocationFailure() {
      allocationFailed = true
      stop(memoryLimitError(memoryMb))
    },
    // The isolate's thread is parked for good: none of the calls into it will return.
    onCatastrophicError(message) {
      if (/memory/i.test(message)) stop({ code: 'MEMORY_LIMIT', message: `${memoryLimitError(memoryMb).message} (${message})` })
      else stop({ code: 'BACKEND_CRASHED', message: `isolated-vm lost control of the isolate: ${message}` })
    },
    onHostError(error) {
      stop({ code: 'INTERNAL', message: `a host function of the run failed: ${messageOf(error)}` })
    },
  })
  relay.connect({
    settle: (id, ok, payload) => entered(() => vm.settle.apply(undefined, [id, ok, payload])),
    fire: (id) => entered(() => vm.fire.apply(undefined, [id])),
  })
  const forget = register(stop)
  const cancelWatch = watchStop(request, stop)
  let sampledOver = false
  const cancelSampling = sampleHeap(vm.isolate, memoryMb, () => {
    sampledOver = true
    stop(memoryLimitError(memoryMb))
  })
  // A reading queued right behind the start call (isolated-vm runs an isolate's tasks in
  // order), so it sees what a synchronous program left before any GC task V8 posts meanwhile.
  let afterStart: Promise<IvmHeapStatistics | undefined> | undefined
  let startReturned = false

  void relay.done.then(async (done) => {
    if (settled || profiling) return
    doneSeen = true
    // Nothing more reaches the guest: pending tool results and timers are dropped from here.
    relay.close()
    // The profile is taken while the isolate still lives (bounded by core).
    if (request.inspector !== undefined) await request.inspector.beforeEnd()
    if (mode.keep) await untilIdle()
    readCpu()
    // A result reported from inside the start call: the reading queued behind it is the
    // end-of-run one. Otherwise read now, and still look at that earlier reading.
    const heap = afterStart !== undefined && !startReturned ? await withinWait(afterStart) : await readHeap(vm.isolate)
    const behindStart = afterStart !== undefined && startReturned ? await withinWait(afterStart) : undefined
    const over = sampledOver || [heap, behindStart].some((stats) => stats !== undefined && provesOverLimit(stats, memoryMb))
    // Over the limit: the isolate goes, as when isolated-vm stops it (a session ends too).
    if (over) vm.dispose()
    const base: ExecuteOutcome = allocationFailed || over ? { ok: false, error: memoryLimitError(memoryMb) } : outcomeFromDone(done)
    const heapBytes = heap === undefined ? undefined : heap.used_heap_size + heap.externally_allocated_size
    finish({ ...base, stats: { ...base.stats, ...cpuStats(cpuMs), ...(heapBytes === undefined ? {} : { heapBytes }) } })
  })

  // Small handovers go synchronously: isolated-vm runs a sync call on the calling thread, where
  // an async one costs two thread hand-offs, and W1 is mostly such hand-offs (apps/bench).
  // Large ones stay async so the host's event loop is not blocked while V8 decodes or compiles.
  // Never with an inspector: a debugger pausing a synchronous call would pause the host's thread.
  const inspector = request.inspector
  const sync = inspector === undefined && request.setup.length + request.script.length <= SYNC_HANDOVER_MAX_CHARS
  const engineInspector = inspector === undefined ? undefined : isolateInspector(vm.isolate)
  const drive = async () => {
    if (engineInspector !== undefined) inspector?.attach(engineInspector)
    try {
      // Install only runs guest code in a session's context (a getter an earlier run left on a
      // namespace): that must stay under the deadline timer, so only a fresh isolate goes sync.
      if (sync && !mode.keep) vm.install.applySync(undefined, [request.setup])
      else await vm.install.apply(undefined, [request.setup])
    } catch (error) {
      if (vm.isolate.isDisposed) throw error
      // Install only throws in a context an earlier run of the session changed so that the
      // runtime cannot define its globals again (a frozen globalThis, a non-configurable
      // console): the guest's doing, and no later run could start either.
      stop({
        code: 'RUNTIME_ERROR',
        name: error instanceof Error ? error.name : 'Error',
        message: `the session's context refuses the run's setup, after an earlier run changed its globals: ${messageOf(error)}`,
      })
      return
    }
    let script
    try {
      const options = { filename: request.filename }
      script = sync ? vm.isolate.compileScriptSync(request.script, options) : await vm.isolate.compileScript(request.script, options)
    } catch (error) {
      const asGuestError = compileError(error, request.filename)
      if (asGuestError === undefined) throw error
      readCpu()
      finish({ ok: false, error: asGuestError, stats: cpuStats(cpuMs) })
      return
    }
    // The script is the guest's code wrapped as one function expression: running it only makes
    // that function. The timeout bounds a request from elsewhere whose script does more, since a
    // synchronous call holds the host's thread and no timer of ours can fire meanwhile.
    let main
    try {
      main = sync
        ? script.runSync(vm.context, { reference: true, release: true, timeout: Math.max(1, request.deadline - Date.now()) })
        : await script.run(vm.context, { reference: true, release: true })
    } catch (error) {
      if (!sync || vm.isolate.isDisposed || !TIMED_OUT.test(messageOf(error))) throw error
      stop(stopError(request))
      return
    }
    // A debugger may hold the start (waitForDebugger); the deadline and an abort still end the run.
    if (inspector !== undefined) await inspector.beforeStart()
    if (settled) {
      main.release()
      return
    }
    // `release: true` lets go of the host's handle once the function is in the runtime's hands.
    const startCall = vm.start.apply(undefined, [main.derefInto({ release: true })])
    engineInspector?.runStartQueued()
    afterStart = vm.isolate.getHeapStatistics().catch(() => undefined)
    void startCall.then(
      () => (startReturned = true),
      () => (startReturned = true),
    )
    started = true
    track(startCall)
  }
  drive().catch((error: unknown) => stop(engineFailure(error, memoryMb)))

  try {
    return await outcome
  } finally {
    cancelWatch()
    cancelSampling()
    forget()
    relay.close()
    vm.port.detach()
    // The run's inspector sessions end before its result is handed over: a host that exits right
    // after (process.exit) would otherwise tear the isolate down under a connected session, which
    // deadlocks isolated-vm's exit (engine-inspector.ts).
    if (inspector !== undefined) await closeInspectorSessions(vm.isolate)
    mode.onEnd?.(inFlight === 0 && !vm.isolate.isDisposed)
  }
}

/** The codes of stops from outside, after which the isolate is still sound to ask for its profile. */
const STOPS_FROM_OUTSIDE = new Set(['TIMEOUT', 'ABORTED'])

/** Resolves when `promise` settles or after `ms`, whichever comes first. */
async function withinMs(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))
  try {
    await Promise.race([promise.catch(() => undefined), late])
  } finally {
    clearTimeout(timer)
  }
}

function readCpuTime(vm: GuestVm): bigint | undefined {
  try {
    return vm.isolate.cpuTime
  } catch {
    // Disposed (memory limit, a stop): the last reading stands.
    return undefined
  }
}

function cpuStats(cpuMs: number | undefined): BackendRunStats {
  return cpuMs === undefined ? {} : { cpuMs }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
