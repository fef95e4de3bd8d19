/**
 * What an engine child is launched with for given settings: its entry, the folders it may read,
 * its flags and memory ceiling, and its first frame. The backend's pool and the early start
 * (early-start.ts) make it here, so a child started early is the very child the pool would start.
 */
import type { EngineInit, EngineName } from '../engine-child/engine-init.js'
import { findChildEntry } from '../executables.js'
import type { EngineChildLaunch } from '../launch-plan.js'
import type { ResolvedOptions } from '../options.js'
import { findEngineModules } from './engine-modules.js'

const MB = 1024 * 1024
/**
 * RLIMIT_DATA counts address space V8 reserves, not only what it uses: on Node 26 an idle engine
 * child's data segment grows by about 700 MB per QuickJS worker thread and 400 MB per isolate
 * thread (Node 20: far less). The ceiling leaves room for that per run slot; each run's own
 * memory is held by its engine.
 */
const reservedMbPerRun: Record<EngineName, number> = { 'isolated-vm': 256, quickjs: 1024 }

export interface EngineChildSpec {
  launch: EngineChildLaunch
  init: EngineInit
}

/** The engine child for `settings`, or why there cannot be one here. */
export function engineChildSpec(engine: EngineName, settings: ResolvedOptions): EngineChildSpec | string {
  const modules = findEngineModules(engine)
  if (!modules.ok) return modules.reason
  const entry = findChildEntry('engine-child.js')
  if ('reason' in entry) return entry.reason
  return {
    launch: {
      entryPath: entry.path,
      readable: modules.readable,
      engineFlags: engine === 'isolated-vm' ? ['--allow-addons', '--no-node-snapshot'] : ['--allow-worker'],
      dataBytes: (2 * settings.childMemoryMb + reservedMbPerRun[engine] * settings.runsPerChild + 512) * MB,
    },
    init: { engine, moduleUrl: modules.moduleUrl, coreUrl: modules.coreUrl, addons: modules.addons, runs: settings.runsPerChild },
  }
}
