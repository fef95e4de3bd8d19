/**
 * The `fetch` run option: its public shape, its defaults, and the check that turns it into the
 * policy the host enforces. A mistake in it is the host's, so it throws INVALID_OPTIONS.
 */
import { SandboxError } from '../errors.js'
import { describeOptionValue } from '../limits.js'
import { hostOf, originOf } from './url-policy.js'

/** A value the guest may use by name, sent only to the hosts it is bound to. */
export interface FetchSecret {
  /** The secret itself. It never enters the guest. */
  value: string
  /** Host names (e.g. `api.example.com`) whose requests get the value; each must be allowed. */
  hosts: readonly string[]
}

export interface FetchOptions {
  /** Origins the guest may fetch from: `https://api.example.com`, `http://127.0.0.1:8080`. */
  allow: readonly string[]
  /**
   * Names the guest writes in a header value (`Authorization: Bearer API_KEY`); the host puts the
   * value in their place, only in requests to the secret's hosts.
   */
  secrets?: Readonly<Record<string, FetchSecret>>
  /**
   * Lets requests reach loopback, private (RFC 1918, CGNAT, unique local) and link-local addresses,
   * but only when an `allow` entry names the address literally (`http://127.0.0.1:8080`), never
   * through a host name. Metadata, unspecified, broadcast and multicast addresses stay refused.
   * Default false.
   */
  allowPrivateAddresses?: boolean
  /** Requests the run may send, redirect hops included. Default 20. */
  maxRequests?: number
  /** Request body bytes the run may send, summed over its requests. Default 1 MiB. */
  maxRequestBytes?: number
  /** Response body bytes the run may receive, summed over its requests. Default 8 MiB. */
  maxResponseBytes?: number
  /** Time one request may take, redirects and body included. Default 10 s (the run's deadline still wins). */
  requestTimeoutMs?: number
  /** Redirects followed per request. Default 5. */
  maxRedirects?: number
  /**
   * Resolves a host name to its addresses instead of the system resolver (DNS over HTTPS, a pinned
   * table, tests). Every address it returns is checked like any DNS answer.
   */
  lookup?: (hostname: string) => readonly string[] | Promise<readonly string[]>
}

export const FETCH_DEFAULTS = Object.freeze({
  maxRequests: 20,
  maxRequestBytes: 1024 * 1024,
  maxResponseBytes: 8 * 1024 * 1024,
  requestTimeoutMs: 10_000,
  maxRedirects: 5,
})

/** The checked option, as the host enforces it. */
export interface FetchPolicy {
  /** Allowed origins, as `URL.origin` spells them (host without a trailing dot). */
  readonly origins: ReadonlySet<string>
  /** Secret name → value and the host names it is bound to. */
  readonly secrets: ReadonlyMap<string, { value: string; hosts: ReadonlySet<string> }>
  readonly allowPrivateAddresses: boolean
  readonly maxRequests: number
  readonly maxRequestBytes: number
  readonly maxResponseBytes: number
  readonly requestTimeoutMs: number
  readonly maxRedirects: number
  readonly lookup: FetchOptions['lookup']
}

const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{2,}$/
const KNOWN_KEYS = new Set([
  'allow',
  'secrets',
  'allowPrivateAddresses',
  'maxRequests',
  'maxRequestBytes',
  'maxResponseBytes',
  'requestTimeoutMs',
  'maxRedirects',
  'lookup',
])
const COUNTS: Record<string, [min: number, max: number]> = {
  maxRequests: [1, 10_000],
  maxRequestBytes: [0, 2 ** 31 - 1],
  maxResponseBytes: [0, 2 ** 31 - 1],
  requestTimeoutMs: [1, 2 ** 31 - 1],
  maxRedirects: [0, 20],
}

const cache = new WeakMap<object, FetchPolicy>()

/** Checks the `fetch` option (cached per object); `undefined` when the run has no fetch. */
export function resolveFetchPolicy(option: unknown, source: string): FetchPolicy | undefined {
  // false: no fetch for this run, even when the sandbox defaults have one.
  if (option === undefined || option === false) return undefined
  const invalid = (message: string): never => {
    throw new SandboxError('INVALID_OPTIONS', `${source}: fetch${message}`)
  }
  if (typeof option !== 'object' || option === null || Array.isArray(option)) {
    invalid(` must be an object such as { allow: ['https://api.example.com'] }, got ${describeOptionValue(option)}`)
  }
  const cached = cache.get(option as object)
  if (cached !== undefined) return cached
  const record = option as Record<string, unknown>
  for (const key of Object.keys(record)) if (!KNOWN_KEYS.has(key)) invalid(`: unknown option "${key}"`)

  const allow = record.allow
  if (!Array.isArray(allow) || allow.length === 0) invalid('.allow must be a non-empty array of origins')
  const origins = new Set<string>()
  for (const entry of allow as unknown[]) {
    const origin = typeof entry === 'string' ? originOf(entry) : undefined
    if (origin === undefined) {
      invalid(
        `.allow: ${describeOptionValue(entry)} is not an http(s) origin such as "https://api.example.com" (no path, query or credentials)`,
      )
    }
    origins.add(origin as string)
  }
  const allowedHosts = new Set([...origins].map((origin) => new URL(origin).hostname))

  const secrets = new Map<string, { value: string; hosts: ReadonlySet<string> }>()
  const rawSecrets = record.secrets
  if (rawSecrets !== undefined) {
    if (typeof rawSecrets !== 'object' || rawSecrets === null || Array.isArray(rawSecrets)) {
      invalid('.secrets must be an object of NAME → { value, hosts }')
    }
    for (const [name, secret] of Object.entries(rawSecrets as Record<string, unknown>)) {
      if (!SECRET_NAME.test(name)) invalid(`.secrets: "${name}" must be an identifier of 3 or more characters (letters, digits, _)`)
      const { value, hosts } = (typeof secret === 'object' && secret !== null ? secret : {}) as Record<string, unknown>
      if (typeof value !== 'string' || value === '' || /[\r\n\0]/.test(value)) {
        invalid(`.secrets.${name}.value must be a non-empty string without CR, LF or NUL`)
      }
      if (!Array.isArray(hosts) || hosts.length === 0) invalid(`.secrets.${name}.hosts must be a non-empty array of host names`)
      const bound = new Set<string>()
      for (const host of hosts as unknown[]) {
        const normalized = typeof host === 'string' ? hostOf(host) : undefined
        if (normalized === undefined) invalid(`.secrets.${name}.hosts: ${describeOptionValue(host)} is not a host name`)
        if (!allowedHosts.has(normalized as string)) invalid(`.secrets.${name}.hosts: "${String(host)}" is not the host of any allow entry`)
        bound.add(normalized as string)
      }
      secrets.set(name, { value: value as string, hosts: bound })
    }
  }

  const flag = record.allowPrivateAddresses
  if (flag !== undefined && typeof flag !== 'boolean') invalid(`.allowPrivateAddresses must be a boolean, got ${describeOptionValue(flag)}`)
  const counts = { ...FETCH_DEFAULTS } as Record<keyof typeof FETCH_DEFAULTS, number>
  for (const [key, [min, max]] of Object.entries(COUNTS)) {
    const value = record[key]
    if (value === undefined) continue
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      invalid(`.${key} must be an integer from ${min} to ${max}, got ${describeOptionValue(value)}`)
    }
    counts[key as keyof typeof FETCH_DEFAULTS] = value as number
  }
  const lookup = record.lookup
  if (lookup !== undefined && typeof lookup !== 'function') invalid('.lookup must be a function (hostname) => addresses')

  const policy: FetchPolicy = {
    origins,
    secrets,
    allowPrivateAddresses: flag === true,
    ...counts,
    lookup: lookup as FetchOptions['lookup'],
  }
  cache.set(option as object, policy)
  return policy
}
