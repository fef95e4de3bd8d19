/**
 * The small part of isolated-vm's API this backend uses, typed here so the package
 * compiles without isolated-vm installed (it is an optional dependency) and works with
 * every supported major (5, 6, 7), whose APIs agree on these members.
 */
export interface IvmModule {
  Isolate: new (options: { memoryLimit: number; inspector?: boolean; onCatastrophicError?: (message: string) => void }) => IvmIsolate
  Callback: new (fn: (...args: never[]) => unknown, options?: { sync?: boolean; async?: boolean; ignored?: boolean }) => IvmCallback
  /** For a SharedArrayBuffer, a copy that shares its memory. */
  ExternalCopy: new (value: SharedArrayBuffer) => { copyInto(options?: { release?: boolean }): unknown }
}

export interface IvmHeapStatistics {
  used_heap_size: number
  heap_size_limit: number
  externally_allocated_size: number
}

export interface IvmIsolate {
  readonly isDisposed: boolean
  readonly cpuTime: bigint
  createContext(options?: { inspector?: boolean }): Promise<IvmContext>
  /** Only on an isolate made with `inspector: true`. */
  createInspectorSession(): IvmInspectorSession
  compileScript(code: string, options?: IvmCompileOptions): Promise<IvmScript>
  compileScriptSync(code: string, options?: { filename?: string }): IvmScript
  getHeapStatistics(): Promise<IvmHeapStatistics>
  dispose(): void
}

export interface IvmContext {
  release(): void
}

/** V8's code cache for one script (an ExternalCopy of an ArrayBuffer): opaque here. */
export type IvmCachedData = object

export interface IvmCompileOptions {
  filename?: string
  cachedData?: IvmCachedData
  produceCachedData?: boolean
}

export interface IvmScript {
  /** Set when compiled with `produceCachedData`. */
  readonly cachedData?: IvmCachedData
  /** Set when compiled with `cachedData`: true when V8 did not take it. */
  readonly cachedDataRejected?: boolean
  run(context: IvmContext, options: { reference: true; release?: boolean }): Promise<IvmReference>
  runSync(context: IvmContext, options: { reference: true; release?: boolean; timeout?: number }): IvmReference
  release(): void
}

/** A handle to a value inside the isolate. Never handed to guest code. */
export interface IvmReference {
  getSync(property: string | number, options: { reference: true }): IvmReference
  apply(receiver: undefined, args: readonly unknown[], options?: { result: { reference: true } }): Promise<unknown>
  applySync(receiver: undefined, args: readonly unknown[], options?: { timeout?: number }): unknown
  /** A value that, passed into the isolate, is the referenced value there. */
  derefInto(options?: { release?: boolean }): unknown
  release(): void
}

/** Opaque: becomes a plain function once transferred into the isolate. */
export type IvmCallback = object

/** One Chrome DevTools Protocol session with an isolate's V8 inspector. */
export interface IvmInspectorSession {
  dispatchProtocolMessage(message: string): void
  onResponse: (callId: number, message: string) => void
  onNotification: (message: string) => void
  dispose(): void
}
