import { toBase64Url } from '../durable/base64url.js'
import { sha256 } from '../durable/sha256.js'
import type { ModuleSources } from './load-modules.js'

/**
 * SHA-256 (base64url) of a run's modules, names and sources, in name order: a paused run's
 * continuation keeps it, so a resume given other modules is refused instead of replayed.
 */
export function modulesHash(sources: ModuleSources): string {
  const entries = [...sources].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return toBase64Url(sha256(JSON.stringify(entries)))
}
