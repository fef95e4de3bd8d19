import type { FreshEngine } from './fresh-engine.js'

/**
 * Makes the fresh engines of one QuickJS engine family (quickjs-emscripten's builds, or
 * quickjs-wasi): loads it once, and then makes an engine per run or session for a memory cap.
 */
export interface EngineMaker {
  /** Loads and checks the engine on first use; a failure is not cached (the next run tries again). */
  load(): Promise<void>
  /** The cap engines for runs allowed `memoryMb` are made for (the pool keeps engines per cap). */
  capFor(memoryMb: number): number
  /** A fresh engine for `cap`, its guest runtime evaluated (not yet made). Call after `load`. */
  create(cap: number): Promise<FreshEngine>
  /** Where fresh engines come from (QuickJSDiagnostics.engineImage); undefined before `load`. */
  imageSource(): string | undefined
  /** `engine`, which a run used, made fresh again for `cap` (see FreshEngine.recycle); undefined when it cannot be. */
  recycle(engine: FreshEngine, cap: number): FreshEngine | undefined
}

/** What QuickJSDiagnostics.engineImage says with `engineImage: false`. */
export const NO_IMAGE = 'none (engineImage: false): every engine evaluates the guest runtime'
