/**
 * A run's modules, from the option to the script: load (loaders on the host, within the run's
 * time), cap, compile, check the program's static imports, bind a durable run to them, link.
 */
import type { NormalizedProgram } from '../normalize/index.js'
import type { RunError } from '../result.js'
import type { DurablePlan } from '../durable/durable-plan.js'
import { loadModules, modulesTooLarge, type LoadedModules } from './load-modules.js'
import type { ModuleMap } from './module-options.js'
import { checkStaticGraph, compileModules } from './module-graph.js'
import { linkProgram, type LinkedProgram } from './link-program.js'
import { modulesHash } from './modules-hash.js'

export interface RunModules {
  map: ModuleMap
  /** Already loaded (a resume loads them first, to check them against its continuation). */
  loaded: LoadedModules | undefined
  maxCodeBytes: number
  /** Ends the wait for loaders when the run stops. */
  signal: AbortSignal
  durable: DurablePlan | undefined
}

export async function linkRunModules(program: NormalizedProgram, run: RunModules): Promise<LinkedProgram | { error: RunError }> {
  const loaded = run.loaded ?? (await loadModules(run.map, run.signal))
  if (!loaded.ok) return { error: loaded.error }
  const tooLarge = modulesTooLarge(loaded.sources, run.maxCodeBytes)
  if (tooLarge !== undefined) return { error: tooLarge }
  const compiled = await compileModules(loaded.sources)
  const linkError = checkStaticGraph(program, compiled)
  if (linkError !== undefined) return { error: linkError }
  if (run.durable !== undefined) run.durable.modules = modulesHash(loaded.sources)
  return linkProgram(program, compiled)
}
