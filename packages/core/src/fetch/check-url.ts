/**
 * Whether the guest may fetch a URL (url-policy.ts has the rules). Apart from the options' checks
 * because it needs ipaddr.js, which only a fetching run loads.
 */
import { classifyAddress } from './address-class.js'
import { parseUrl, SCHEMES, withoutTrailingDot } from './url-policy.js'

export type UrlVerdict = { ok: true; url: URL; literal: boolean } | { ok: false; reason: string }

/** Whether the guest may fetch `text`: an http(s) URL of an allowed origin, without credentials. */
export function checkUrl(text: string, origins: ReadonlySet<string>): UrlVerdict {
  const url = parseUrl(text)
  if (url === undefined) return { ok: false, reason: `${JSON.stringify(text.slice(0, 200))} is not a valid absolute URL` }
  if (!SCHEMES.has(url.protocol)) return { ok: false, reason: `the scheme ${url.protocol} is not allowed (only http: and https:)` }
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'URLs with credentials are not allowed' }
  withoutTrailingDot(url)
  if (!origins.has(url.origin)) return { ok: false, reason: `${url.origin} is not allowed by fetch.allow` }
  return { ok: true, url, literal: classifyAddress(url.hostname) !== undefined }
}
