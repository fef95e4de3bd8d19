import type { JSValueHandle, QuickJS } from 'quickjs-wasi'
import type { EngineContext, EngineDeferred, EngineFunction, EngineHandle, EngineResult, EngineRuntime } from '../engine-api.js'

/** A quickjs-wasi value as the engine API holds it. */
class WasiHandle implements EngineHandle {
  constructor(readonly raw: JSValueHandle) {}

  get alive(): boolean {
    return !this.raw.disposed
  }

  dispose(): void {
    if (!this.raw.disposed) this.raw.dispose()
  }

  consume<O>(fn: (handle: EngineHandle) => O): O {
    try {
      return fn(this)
    } finally {
      this.dispose()
    }
  }
}

/** The VM's own undefined, null, true, false and global: cached by quickjs-wasi, never freed by us. */
class WasiStaticHandle extends WasiHandle {
  override get alive(): boolean {
    return true
  }

  override dispose(): void {}
}

const raw = (handle: EngineHandle): JSValueHandle => (handle as WasiHandle).raw

/**
 * The VM's WASM exports and its own way to read a pending exception: declared private by
 * quickjs-wasi 3.7.0 (pinned), needed to run promise jobs in bounded batches, to give each
 * VM its own Math.random state (wasi-image.ts) and to cap the probe's engine once it is used.
 */
interface VmInternals {
  readonly exports: {
    readonly memory: WebAssembly.Memory
    qjs_is_job_pending(): number
    qjs_execute_pending_job(): number
    qjs_set_memory_limit(bytes: number): void
    qjs_get_context_ptr(): number
  }
  throwPendingException(): never
}
export const internals = (vm: QuickJS): VmInternals => vm as unknown as VmInternals

/** quickjs-wasi's module, imported on first use (hosts that never pick this engine never load it). */
export type WasiModule = typeof import('quickjs-wasi')

/**
 * What the guest threw, as a handle; anything else (a WASM trap, the host's stack running out)
 * propagates: the instance's C state is then half-unwound, and the caller's gate drops it.
 */
function attempt<T>(context: WasiContext, action: () => T): EngineResult<T> {
  try {
    return { value: action() }
  } catch (error) {
    if (error instanceof context.wasi.JSException && error.handle.vm === context.vm) return { error: new WasiHandle(error.handle) }
    throw error
  }
}

/**
 * A host callback's failure as the guest should see it. The relay throws `{ name, message }`
 * (see relay-object.ts); quickjs-wasi makes a guest Error of a host Error's name and message,
 * and copies a non-empty `stack` too, which would show the host's paths: it is emptied.
 */
function guestError(thrown: unknown): Error {
  const { name, message } = (thrown ?? {}) as { name?: unknown; message?: unknown }
  const error = new Error(typeof message === 'string' ? message : 'the sandbox host failed')
  error.name = typeof name === 'string' ? name : 'Error'
  error.stack = ''
  return error
}

/** One quickjs-wasi VM (its own WASM instance, runtime and context) behind the engine API. */
export class WasiContext implements EngineContext {
  readonly undefined: EngineHandle
  readonly null: EngineHandle
  readonly true: EngineHandle
  readonly false: EngineHandle
  readonly global: EngineHandle
  private disposed = false

  constructor(
    readonly wasi: WasiModule,
    readonly vm: QuickJS,
  ) {
    this.undefined = new WasiStaticHandle(vm.undefined)
    this.null = new WasiStaticHandle(vm.null)
    this.true = new WasiStaticHandle(vm.true)
    this.false = new WasiStaticHandle(vm.false)
    this.global = new WasiStaticHandle(vm.global)
  }

  get alive(): boolean {
    return !this.disposed
  }

  evalCode(code: string, filename: string): EngineResult<EngineHandle> {
    return attempt(this, () => new WasiHandle(this.vm.evalCode(code, filename)))
  }

  callFunction(fn: EngineHandle, thisValue: EngineHandle, ...args: EngineHandle[]): EngineResult<EngineHandle> {
    return attempt(this, () => new WasiHandle(this.vm.callFunction(raw(fn), raw(thisValue), ...args.map(raw))))
  }

  newNumber(value: number): EngineHandle {
    return new WasiHandle(this.vm.newNumber(value))
  }

  newString(value: string): EngineHandle {
    return new WasiHandle(this.vm.newString(value))
  }

  newObject(): EngineHandle {
    return new WasiHandle(this.vm.newObject())
  }

  newFunction(name: string, fn: EngineFunction): EngineHandle {
    const { vm } = this
    // quickjs-wasi keys host callbacks by name, unique per VM; the relay's names are.
    return new WasiHandle(
      vm.newFunction(name, (...args) => {
        let result: EngineHandle | undefined
        try {
          // The arguments are borrowed: the engine frees them after the call.
          result = fn(...args.map((arg) => new WasiStaticHandle(arg)))
        } catch (thrown) {
          throw guestError(thrown)
        }
        if (result === undefined) return vm.undefined
        // quickjs-wasi gives the engine its own reference to what a host function returns; the
        // host's handle is freed once this engine call is over (as quickjs-emscripten frees a
        // returned handle), or every returned string and promise would live as long as the VM.
        queueMicrotask(() => {
          if (!this.disposed) result.dispose()
        })
        return raw(result)
      }),
    )
  }

  newPromise(): EngineDeferred {
    const deferred = this.vm.newPromise()
    const handle = new WasiHandle(deferred.handle)
    let settled = false
    return {
      handle,
      get alive() {
        return !settled && handle.alive
      },
      resolve(value) {
        settled = true
        deferred.resolve(raw(value))
      },
      reject(value) {
        settled = true
        deferred.reject(raw(value))
      },
      dispose() {
        settled = true
        handle.dispose()
      },
    }
  }

  typeof(handle: EngineHandle): string {
    return this.vm.typeof(raw(handle))
  }

  getString(handle: EngineHandle): string {
    return raw(handle).toString()
  }

  getNumber(handle: EngineHandle): number {
    return raw(handle).toNumber()
  }

  getProp(handle: EngineHandle, key: string): EngineHandle {
    return new WasiHandle(raw(handle).getProp(key))
  }

  setProp(handle: EngineHandle, key: string, value: EngineHandle): void {
    this.vm.setProp(raw(handle), key, raw(value))
  }

  dump(handle: EngineHandle): unknown {
    return this.vm.dump(raw(handle))
  }

  dispose(): void {
    if (this.disposed) return
    this.disposed = true
    this.vm.dispose()
  }
}

/**
 * The same VM's job queue and interrupt handler. quickjs-wasi takes the interrupt handler when the
 * VM is made, so the VM is made with `interrupts.check` and this runtime swaps what it calls.
 */
export class WasiRuntime implements EngineRuntime {
  constructor(
    private readonly context: WasiContext,
    private readonly interrupts: { handler: (() => boolean) | undefined },
  ) {}

  get alive(): boolean {
    return this.context.alive
  }

  setInterruptHandler(handler: () => boolean): void {
    this.interrupts.handler = handler
  }

  removeInterruptHandler(): void {
    this.interrupts.handler = undefined
  }

  hasPendingJob(): boolean {
    return internals(this.context.vm).exports.qjs_is_job_pending() !== 0
  }

  /**
   * quickjs-wasi's own executePendingJobs runs the whole queue; a run must give the host's event
   * loop a turn between batches (engine-gate.ts), so jobs are run one by one through its exports,
   * and a job's exception is read by the VM itself (as its executePendingJobs does).
   */
  executePendingJobs(maxJobs: number): EngineResult<number> {
    const inside = internals(this.context.vm)
    let count = 0
    return attempt(this.context, () => {
      while (count < maxJobs && inside.exports.qjs_is_job_pending() !== 0) {
        if (inside.exports.qjs_execute_pending_job() < 0) inside.throwPendingException()
        count++
      }
      return count
    })
  }

  dispose(): void {
    this.context.dispose()
  }
}
