import type { Config, UpstreamConfig } from './config-schema.js'
import { log } from './log.js'
import { startRemoteUpstream } from './remote-upstream.js'
import { startUpstream, UpstreamStartError, type StartUpstreamOptions, type Upstream } from './upstream.js'

export interface UnavailableUpstream {
  name: string
  reason: string
}

export interface StartedUpstreams {
  upstreams: Upstream[]
  /** Upstreams that failed to start and are not `required`: the server runs without them. */
  unavailable: UnavailableUpstream[]
  /** Remote upstreams among them that were not reachable: worth trying again in the background. */
  retryable: { name: string; entry: UpstreamConfig }[]
}

/**
 * Starts every enabled upstream at once. One that fails is reported and left out, so a broken
 * or slow-to-install server does not take the others down — unless its entry says
 * `"required": true`: then every upstream is closed again and this throws.
 */
export async function startUpstreams(config: Config, options: StartUpstreamOptions): Promise<StartedUpstreams> {
  const entries = Object.entries(config.mcpServers).filter(([name, entry]) => {
    if (entry.disabled) log(`upstream server "${name}" is disabled in the config; skipped`)
    return !entry.disabled
  })
  // A `url` is a remote server reached over HTTP; otherwise a process started over stdio.
  const settled = await Promise.allSettled(
    entries.map(([name, entry]) =>
      entry.url === undefined ? startUpstream(name, entry, options) : startRemoteUpstream(name, entry, options),
    ),
  )

  const upstreams: Upstream[] = []
  const unavailable: UnavailableUpstream[] = []
  const retryable: StartedUpstreams['retryable'] = []
  const fatal: UpstreamStartError[] = []
  settled.forEach((outcome, i) => {
    const [name, entry] = entries[i]!
    if (outcome.status === 'fulfilled') {
      upstreams.push(outcome.value)
      return
    }
    const error = outcome.reason instanceof UpstreamStartError ? outcome.reason : new UpstreamStartError(name, String(outcome.reason))
    if (entry.required) fatal.push(error)
    else if (!error.retryable) unavailable.push({ name, reason: error.reason })
    else {
      unavailable.push({ name, reason: `${error.reason}; cordon-mcp keeps trying to connect` })
      retryable.push({ name, entry })
    }
  })

  if (fatal.length > 0) {
    await closeUpstreams(upstreams)
    throw new RequiredUpstreamError(fatal)
  }
  for (const { name, reason } of unavailable) log(`upstream server "${name}" failed to start, continuing without it: ${reason}`)
  return { upstreams, unavailable, retryable }
}

/** A `"required": true` upstream did not start; cordon-mcp does not serve without it. */
export class RequiredUpstreamError extends Error {
  override readonly name = 'RequiredUpstreamError'
  constructor(readonly failures: readonly UpstreamStartError[]) {
    super(failures.map((f) => `${f.message} (it is marked "required": true)`).join('\n'))
  }
}

export async function closeUpstreams(upstreams: readonly Upstream[]): Promise<void> {
  await Promise.allSettled(upstreams.map((upstream) => upstream.close()))
}
