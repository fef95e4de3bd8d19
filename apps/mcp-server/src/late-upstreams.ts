import type { Catalog } from './catalog.js'
import type { UpstreamConfig } from './config-schema.js'
import { log } from './log.js'
import { startRemoteUpstream } from './remote-upstream.js'
import type { StartUpstreamOptions, Upstream } from './upstream.js'

const FIRST_RETRY_MS = 1_000
const MAX_RETRY_MS = 30_000

/**
 * A remote upstream that could not be reached at startup is tried again in the background
 * (after 1 s, doubling up to 30 s) until it connects; then its tools join the catalog and
 * clients hear of the new description (the catalog keeps it with the other upstreams, which
 * shutdown closes). Returns the function that stops trying.
 */
export function retryLateUpstream(name: string, entry: UpstreamConfig, options: StartUpstreamOptions, catalog: Catalog): () => void {
  let stopped = false
  let delay = FIRST_RETRY_MS
  let timer: NodeJS.Timeout | undefined
  const attempt = async () => {
    timer = undefined
    let upstream: Upstream
    try {
      upstream = await startRemoteUpstream(name, entry, options)
    } catch {
      delay = Math.min(delay * 2, MAX_RETRY_MS)
      schedule()
      return
    }
    if (stopped) return void (await upstream.close().catch(() => undefined))
    await catalog.add(upstream)
    log(`upstream server "${name}" is reachable now: its ${upstream.tools.length} tools are available`)
  }
  const schedule = () => {
    if (stopped) return
    timer = setTimeout(() => void attempt(), delay)
    timer.unref()
  }
  schedule()
  return () => {
    stopped = true
    if (timer !== undefined) clearTimeout(timer)
  }
}
