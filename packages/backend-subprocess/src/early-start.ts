/**
 * `@cordon/backend-subprocess/early-start`: starts, now, the engine child that a subprocess
 * backend with default options will start for its first run — before that backend, or core, is
 * imported. A fresh process's first result comes that much sooner: the child's Node starts
 * (~60–90 ms) while the host still loads and sets up. The first such backend's pool adopts the
 * child; nothing else can reach it. Only when the launch-plan cache remembers isolated-vm working
 * with the plan (a later process, not the first one on a machine), since only then is the child
 * known without a check. Never throws; loads nothing of core.
 */
import path from 'node:path'
import { encodeFrame } from './framing.js'
import { openPlanCache, readCachedPlan } from './launch-plan-cache.js'
import { engineLaunchArgv } from './launch-plan.js'
import { defaultSettings } from './option-defaults.js'
import { engineChildKey, startEarlyChild } from './engine-host/early-child.js'
import { engineChildSpec } from './engine-host/engine-child-spec.js'

/**
 * Starts the engine child a default `createSubprocessBackend()` (or select's choice of it) will
 * use first. True when it started one; false when there is nothing to start early (no remembered
 * plan, another early child waits, or anything went wrong: the backend then starts its child as
 * always). A child no backend adopts within 10 s is ended, and it never keeps the process alive.
 */
export function startEngineChildEarly(): boolean {
  try {
    const settings = defaultSettings()
    const notes: string[] = []
    // What a default backend's launcher reads (shared-probe.ts `known`): the same entry, the same plan.
    const slot = openPlanCache(settings, false, notes)
    const cached = slot === undefined ? undefined : readCachedPlan(slot, notes)
    if (cached?.ok !== true || cached.diagnostics.launchPlan?.engine !== 'isolated-vm') return false
    const spec = engineChildSpec('isolated-vm', settings)
    if (typeof spec === 'string') return false
    const argv = engineLaunchArgv(cached.plan, spec.launch)
    const cwd = path.dirname(spec.launch.entryPath)
    return startEarlyChild(engineChildKey(argv, cwd, spec.init), argv, cwd, encodeFrame(['init', spec.init]))
  } catch {
    return false
  }
}
