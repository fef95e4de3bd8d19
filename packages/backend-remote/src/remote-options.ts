import { SandboxError } from '@cordon/core'
import { describeOptionValue } from '@cordon/core/backend'

export interface RemoteBackendOptions {
  /**
   * Where the servers are: a `cordon-server` or the load balancer in front of a fleet of them.
   * `ws://`, `wss://`, `http://` or `https://`, with an optional base path.
   */
  url: string
  /** The servers' token (`CORDON_SERVER_TOKEN` where they run). */
  token: string
  /**
   * How long to keep trying to reach a server before a run fails `BACKEND_UNAVAILABLE`; the run's
   * own deadline bounds it too. Only connecting is retried: a program is never sent twice.
   * Default 5,000 ms.
   */
  connectTimeoutMs?: number
  /** The largest message either way, in bytes. Default 64 MiB; a server has its own cap. */
  maxMessageBytes?: number
  /**
   * How long a connection whose run ended is kept for the next one-off run (saving a connection
   * setup); 0 opens a new connection for every run. Default 2,000 ms (servers close idle
   * connections after 10 s).
   */
  keepAliveMs?: number
  /** Certificates (PEM) to trust for a `wss://` or `https://` server with a private CA. */
  ca?: string | readonly string[]
}

export interface RemoteSettings {
  /** `ws:` or `wss:` URL of the channel endpoint. */
  channelUrl: string
  /** `http:` or `https:` URL of the info endpoint. */
  infoUrl: string
  token: string
  connectTimeoutMs: number
  maxMessageBytes: number
  keepAliveMs: number
  ca: string[] | undefined
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024
export const DEFAULT_KEEP_ALIVE_MS = 2_000

const KNOWN = new Set(['url', 'token', 'connectTimeoutMs', 'maxMessageBytes', 'keepAliveMs', 'ca'])

function invalid(message: string): never {
  throw new SandboxError('INVALID_OPTIONS', 'createRemoteBackend options: ' + message)
}

function positiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    invalid(`${name} must be a positive integer, got ${describeOptionValue(value)}`)
  return value
}

/** Checks the options a caller passed (a typo is an INVALID_OPTIONS error, not a default). */
export function checkRemoteOptions(options: unknown): RemoteSettings {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) invalid('expected an object with url and token')
  const record = options as Record<string, unknown>
  for (const key of Object.keys(record)) if (!KNOWN.has(key)) invalid(`unknown option ${JSON.stringify(key)}`)
  const { url, token, ca } = record
  if (typeof url !== 'string') invalid(`url must be a string, got ${describeOptionValue(url)}`)
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    invalid(`url is not a URL: ${describeOptionValue(url)}`)
  }
  const secure = parsed.protocol === 'wss:' || parsed.protocol === 'https:'
  if (!secure && parsed.protocol !== 'ws:' && parsed.protocol !== 'http:')
    invalid(`url must start with ws://, wss://, http:// or https://, got ${describeOptionValue(url)}`)
  if (parsed.username !== '' || parsed.password !== '') invalid('url must not hold credentials: pass the token as token')
  if (typeof token !== 'string' || token.length === 0) invalid('token must be a non-empty string')
  let trusted: string[] | undefined
  if (ca !== undefined) {
    const list = Array.isArray(ca) ? (ca as unknown[]) : [ca]
    if (list.length === 0 || list.some((pem) => typeof pem !== 'string' || pem.length === 0))
      invalid('ca must be a PEM string or an array of them')
    trusted = list as string[]
  }
  const base = parsed.pathname.replace(/\/+$/, '')
  const host = parsed.host
  return {
    channelUrl: `${secure ? 'wss' : 'ws'}://${host}${base}/v1/channel`,
    infoUrl: `${secure ? 'https' : 'http'}://${host}${base}/v1/info`,
    token,
    connectTimeoutMs: positiveInteger(record.connectTimeoutMs, 'connectTimeoutMs', DEFAULT_CONNECT_TIMEOUT_MS),
    maxMessageBytes: positiveInteger(record.maxMessageBytes, 'maxMessageBytes', DEFAULT_MAX_MESSAGE_BYTES),
    keepAliveMs: record.keepAliveMs === 0 ? 0 : positiveInteger(record.keepAliveMs, 'keepAliveMs', DEFAULT_KEEP_ALIVE_MS),
    ca: trusted,
  }
}
