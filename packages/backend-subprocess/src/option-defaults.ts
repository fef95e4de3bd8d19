/**
 * The options' defaults, apart from their checks (options.ts): the early start (early-start.ts)
 * launches the child a default backend would, without loading core.
 */
import os from 'node:os'
import type { ResolvedOptions } from './option-types.js'

export const OPTION_DEFAULTS = {
  poolSize: 2,
  poolIdleMs: 30_000,
  networkIsolation: 'preferred',
  memoryCheckMs: 10,
  engine: 'auto',
  runsPerChild: 4,
  childMemoryMb: 1024,
  runsPerChildLifetime: 1000,
} as const

/** What `resolveOptions()` returns for no options. */
export function defaultSettings(): ResolvedOptions {
  return Object.freeze({ ...OPTION_DEFAULTS, maxChildren: defaultMaxChildren(), nodePath: undefined, launchPlanCache: undefined })
}

/** One child per core keeps every core busy; more than 8 is rarely worth its memory. */
export function defaultMaxChildren(): number {
  let cores = 2
  try {
    cores = os.availableParallelism?.() ?? os.cpus().length
  } catch {
    // Deno without --allow-sys: keep the floor.
  }
  return Math.min(8, Math.max(2, cores))
}
