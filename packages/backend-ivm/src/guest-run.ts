import { createGuestHost, outcomeFromDone, type BackendRunStats, type ExecuteOutcome, type ExecuteRequest, type RunError } from '@cordon/core'
import { compileError } from './compile-error.js'
import { watchStop } from './deadline.js'
import { engineFailure, memoryLimitError } from './engine-failure.js'
import type { GuestVm } from './guest-vm.js'

/** How long the end of a run waits for the isolate's heap statistics. */
const HEAP_STATS_WAIT_MS = 50

/** A way to end a run from outside (the backend's dispose). */
export type RunStopper = (error: RunError) => void

/**
 * Runs one program in one fresh, prepared isolate, following the guest protocol's order
 * (install, compile, start, then settle/fire until done). Never rejects. The isolate is
 * disposed when the run ends, whatever ended it; that is also how a run is stopped:
 * disposing an isolate ends whatever it is executing (loops, microtasks, Atomics.wait).
 */
export async function runInVm(vm: GuestVm, request: ExecuteRequest, active: Set<RunStopper>): Promise<ExecuteOutcome> {
  const memoryMb = vm.memoryMb
  const guestHost = createGuestHost(request)
  let settled = false
  let resolveOutcome!: (outcome: ExecuteOutcome) => void
  const outcome = new Promise<ExecuteOutcome>((resolve) => {
    resolveOutcome = resolve
  })
  let cpuMs: number | undefined
  const readCpu = () => {
    try {
      cpuMs = Number(vm.isolate.cpuTime - vm.cpuBaseline) / 1e6
    } catch {
      // Already disposed (memory limit): the last reading stands.
    }
  }
  const finish = (result: ExecuteOutcome) => {
    if (settled) return
    settled = true
    resolveOutcome(result)
  }
  // Ends the run now and disposes the isolate, which stops the guest wherever it is.
  let doneSeen = false
  const stop: RunStopper = (error) => {
    // A guest that finished before the stop keeps its result (core's rule too).
    if (settled || doneSeen) return
    readCpu()
    finish({ ok: false, error, stats: cpuStats(cpuMs) })
    vm.dispose()
  }
  // The runtime's start/settle/fire catch every guest error, so while the isolate lives, a
  // rejected call is isolated-vm reporting a promise the guest left rejected and unhandled.
  // Those are ignored, as the other backends do; a disposed isolate is the memory limit or a crash.
  const track = (call: Promise<unknown>) => {
    call.catch((error: unknown) => {
      if (vm.isolate.isDisposed) stop(engineFailure(error, memoryMb))
    })
  }

  let allocationFailed = false
  vm.port.functions = guestHost.functions
  // Both are called from inside the guest (a callback); disposing the isolate there is safe
  // and stops the guest before it can catch the RangeError and carry on.
  vm.port.onAllocationFailure = () => {
    allocationFailed = true
    stop(memoryLimitError(memoryMb))
  }
  vm.port.onCatastrophicError = (message) => {
    stop({
      code: /memory/i.test(message) ? 'MEMORY_LIMIT' : 'BACKEND_CRASHED',
      message: `isolated-vm lost control of the isolate (${message}); this backend accepts no more runs`,
    })
  }
  vm.port.onHostError = (error) => {
    stop({ code: 'INTERNAL', message: `a host function of the run failed: ${messageOf(error)}` })
  }
  guestHost.connect({
    settle: (id, ok, payload) => track(vm.settle.apply(undefined, [id, ok, payload])),
    fire: (id) => track(vm.fire.apply(undefined, [id])),
  })
  active.add(stop)
  const cancelWatch = watchStop(request, stop)

  void guestHost.done.then(async (done) => {
    if (settled) return
    doneSeen = true
    readCpu()
    const heapBytes = await readHeapBytes(vm)
    const base: ExecuteOutcome = allocationFailed ? { ok: false, error: memoryLimitError(memoryMb) } : outcomeFromDone(done)
    finish({ ...base, stats: { ...base.stats, ...cpuStats(cpuMs), ...(heapBytes === undefined ? {} : { heapBytes }) } })
  })

  const drive = async () => {
    await vm.install.apply(undefined, [request.setup])
    let script
    try {
      script = await vm.isolate.compileScript(request.script, { filename: request.filename })
    } catch (error) {
      const asGuestError = compileError(error, request.filename)
      if (asGuestError === undefined) throw error
      finish({ ok: false, error: asGuestError })
      return
    }
    const main = await script.run(vm.context, { reference: true, release: true })
    if (settled) return
    track(vm.start.apply(undefined, [main.derefInto()]))
  }
  drive().catch((error: unknown) => stop(engineFailure(error, memoryMb)))

  try {
    return await outcome
  } finally {
    cancelWatch()
    active.delete(stop)
    guestHost.close()
    vm.dispose()
  }
}

/** Heap in use plus ArrayBuffer memory, both of which count against the isolate's limit. */
async function readHeapBytes(vm: GuestVm): Promise<number | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, HEAP_STATS_WAIT_MS, undefined)
  })
  try {
    const stats = await Promise.race([vm.isolate.getHeapStatistics(), late])
    return stats === undefined ? undefined : stats.used_heap_size + stats.externally_allocated_size
  } catch {
    return undefined
  } finally {
    clearTimeout(timer)
  }
}

function cpuStats(cpuMs: number | undefined): BackendRunStats {
  return cpuMs === undefined ? {} : { cpuMs }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
