/**
 * URL and origin checks of the guarded fetch. Parsing is the WHATWG URL parser's, which already
 * spells hosts canonically: lower case, punycode, and every IPv4 spelling (`2130706433`,
 * `0x7f.1`, `0177.0.0.1`) as dotted decimal. We only drop a trailing dot, so `example.com.`
 * and `example.com` are one host.
 */
import { classifyAddress } from './address-class.js'

const SCHEMES = new Set(['http:', 'https:'])

function parse(text: string): URL | undefined {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

function withoutTrailingDot(url: URL): void {
  if (url.hostname.endsWith('.') && !url.hostname.startsWith('[')) url.hostname = url.hostname.slice(0, -1)
}

/** `scheme://host[:port]` of an allow entry, or `undefined` when it is not a bare http(s) origin. */
export function originOf(entry: string): string | undefined {
  const url = parse(entry)
  if (url === undefined || !SCHEMES.has(url.protocol) || url.username !== '' || url.password !== '') return undefined
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || /[?#]/.test(entry)) return undefined
  if (entry.replace(/\/$/, '').split('/').length > 3 || url.hostname.includes('*') || url.hostname === '') return undefined
  withoutTrailingDot(url)
  return url.origin
}

/** A secret's host entry (`api.example.com`, `127.0.0.1`, `[::1]`) in canonical form. */
export function hostOf(entry: string): string | undefined {
  if (/[/@?#\s]/.test(entry)) return undefined
  const url = parse(`http://${entry}`)
  if (url === undefined || url.port !== '' || url.hostname === '' || url.hostname.includes('*')) return undefined
  withoutTrailingDot(url)
  return url.hostname
}

export type UrlVerdict = { ok: true; url: URL; literal: boolean } | { ok: false; reason: string }

/** Whether the guest may fetch `text`: an http(s) URL of an allowed origin, without credentials. */
export function checkUrl(text: string, origins: ReadonlySet<string>): UrlVerdict {
  const url = parse(text)
  if (url === undefined) return { ok: false, reason: `${JSON.stringify(text.slice(0, 200))} is not a valid absolute URL` }
  if (!SCHEMES.has(url.protocol)) return { ok: false, reason: `the scheme ${url.protocol} is not allowed (only http: and https:)` }
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'URLs with credentials are not allowed' }
  withoutTrailingDot(url)
  if (!origins.has(url.origin)) return { ok: false, reason: `${url.origin} is not allowed by fetch.allow` }
  return { ok: true, url, literal: classifyAddress(url.hostname) !== undefined }
}
