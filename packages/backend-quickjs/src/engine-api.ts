/**
 * The part of a QuickJS engine's host API that runs use, the same for every engine this backend
 * runs: quickjs-emscripten's objects have this shape already, and the quickjs-wasi engine wraps
 * its VM in it (wasi/wasi-context.ts). Everything past the engine's making speaks only this.
 */

/** A value inside the engine, held by the host until disposed. */
export interface EngineHandle {
  readonly alive: boolean
  dispose(): void
  /** Calls `fn` with this handle, then disposes it. */
  consume<O>(fn: (handle: EngineHandle) => O): O
}

/** What an engine call gave: its value, or what it threw (both to be disposed by the caller). */
export type EngineResult<T> =
  { readonly value: T; readonly error?: undefined } | { readonly error: EngineHandle; readonly value?: undefined }

/** A promise made on the host, whose resolving functions the host keeps. */
export interface EngineDeferred {
  readonly handle: EngineHandle
  readonly alive: boolean
  resolve(value: EngineHandle): void
  reject(value: EngineHandle): void
  dispose(): void
}

/** A host function's callback: its arguments as handles, its result a handle or undefined. */
export type EngineFunction = (...args: EngineHandle[]) => EngineHandle | undefined

export interface EngineContext {
  readonly alive: boolean
  readonly undefined: EngineHandle
  readonly null: EngineHandle
  readonly true: EngineHandle
  readonly false: EngineHandle
  readonly global: EngineHandle
  evalCode(code: string, filename: string, options: { type: 'global' }): EngineResult<EngineHandle>
  callFunction(fn: EngineHandle, thisValue: EngineHandle, ...args: EngineHandle[]): EngineResult<EngineHandle>
  newNumber(value: number): EngineHandle
  newString(value: string): EngineHandle
  newObject(): EngineHandle
  newFunction(name: string, fn: EngineFunction): EngineHandle
  newPromise(): EngineDeferred
  typeof(handle: EngineHandle): string
  getString(handle: EngineHandle): string
  getNumber(handle: EngineHandle): number
  getProp(handle: EngineHandle, key: string): EngineHandle
  setProp(handle: EngineHandle, key: string, value: EngineHandle): void
  /** A plain host copy of the value (for reports only; never of guest-controlled objects on a run's path). */
  dump(handle: EngineHandle): unknown
  dispose(): void
}

export interface EngineRuntime {
  readonly alive: boolean
  setInterruptHandler(handler: () => boolean): void
  removeInterruptHandler(): void
  hasPendingJob(): boolean
  /** Runs up to `maxJobs` promise jobs: how many ran, or the exception that stopped them. */
  executePendingJobs(maxJobs: number): EngineResult<number>
  dispose(): void
}
