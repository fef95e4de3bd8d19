/**
 * The cordon packages the engine an entry may remember runs with, as installed: the host's
 * `@cordon/core` and `@cordon/backend-ivm`, which the engine children load. Part of the
 * launch-plan cache key, so that an entry remembering isolated-vm (launch-plan-decision.ts) is
 * not trusted after one of them was upgraded, removed or installed: the next backend checks again.
 * (The QuickJS engine is never remembered: it is checked whenever it is chosen.)
 */
import fs from 'node:fs'
import { createRequire } from 'node:module'
import { ENGINE_PACKAGES } from './engine-host/engine-modules.js'

export const KEYED_PACKAGES: readonly string[] = ['@cordon/core', ENGINE_PACKAGES['isolated-vm']]

/** `[name, real path of its package.json, version]`, or `[name, null, null]` where it is not installed; resolved from `from`. */
export function installedVersions(from: string | URL = import.meta.url, names = KEYED_PACKAGES): [string, string | null, string | null][] {
  const require = createRequire(from)
  return names.map((name) => {
    try {
      const file = fs.realpathSync(require.resolve(`${name}/package.json`))
      const { version } = JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: unknown }
      return [name, file, typeof version === 'string' ? version : null]
    } catch {
      return [name, null, null]
    }
  })
}
