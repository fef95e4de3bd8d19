import type { InitMessage } from './messages.js'
import type { ResolvedOptions } from './options.js'
import { probeLaunch, type LaunchResult } from './probe.js'

/** Probes are shared by backends with the same settings: they launch real processes. */
const probes = new Map<string, Promise<LaunchResult>>()

/** How children are launched here, probed once per settings (see probe.ts). */
export function sharedProbe(settings: ResolvedOptions, init: InitMessage, exposeProcess: boolean): Promise<LaunchResult> {
  const key = JSON.stringify([settings.nodePath, settings.networkIsolation, exposeProcess])
  const known = probes.get(key)
  if (known !== undefined) return known
  const started = probeLaunch(settings, init).catch((error: unknown): LaunchResult => {
    const reason = `probing the child launch failed: ${(error as Error)?.message ?? String(error)}`
    return { ok: false, reason, diagnostics: { available: false, reason, layers: [], network: 'unknown', notes: [] } }
  })
  // Success is shared with later backends; a failure stays with this backend only, so a new
  // backend probes again (the cause may have been passing, or fixed).
  void started.then((result) => {
    if (!result.ok && probes.get(key) === started) probes.delete(key)
  })
  probes.set(key, started)
  return started
}
