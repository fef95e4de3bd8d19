/**
 * URL and origin rules of the guarded fetch, as its options name them (a request's URL is checked
 * by check-url.ts). Parsing is the WHATWG URL parser's, which already spells hosts canonically:
 * lower case, punycode, and every IPv4 spelling (`2130706433`, `0x7f.1`, `0177.0.0.1`) as dotted
 * decimal. We only drop a trailing dot, so `example.com.` and `example.com` are one host.
 */

export const SCHEMES = new Set(['http:', 'https:'])

export function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

export function withoutTrailingDot(url: URL): void {
  if (url.hostname.endsWith('.') && !url.hostname.startsWith('[')) url.hostname = url.hostname.slice(0, -1)
}

/** `scheme://host[:port]` of an allow entry, or `undefined` when it is not a bare http(s) origin. */
export function originOf(entry: string): string | undefined {
  const url = parseUrl(entry)
  if (url === undefined || !SCHEMES.has(url.protocol) || url.username !== '' || url.password !== '') return undefined
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || /[?#]/.test(entry)) return undefined
  if (entry.replace(/\/$/, '').split('/').length > 3 || url.hostname.includes('*') || url.hostname === '') return undefined
  withoutTrailingDot(url)
  return url.origin
}

/** A secret's host entry (`api.example.com`, `127.0.0.1`, `[::1]`) in canonical form. */
export function hostOf(entry: string): string | undefined {
  if (/[/@?#\s]/.test(entry)) return undefined
  const url = parseUrl(`http://${entry}`)
  if (url === undefined || url.port !== '' || url.hostname === '' || url.hostname.includes('*')) return undefined
  withoutTrailingDot(url)
  return url.hostname
}
