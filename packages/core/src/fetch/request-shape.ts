/**
 * The request the guest's `fetch` sends to the host, checked field by field: it comes from the
 * guest (or a compromised engine), so nothing in it is trusted. Refusals are TypeErrors, as
 * WHATWG fetch throws for a bad method or header.
 */
import { FetchRefusal } from './fetch-refusal.js'

export type RedirectMode = 'follow' | 'error' | 'manual'

export interface GuestRequest {
  url: string
  method: string
  headers: [string, string][]
  body: Uint8Array | undefined
  redirect: RedirectMode
}

/** What the guest's `fetch` resolves its Response from. */
export interface GuestResponse {
  status: number
  statusText: string
  url: string
  redirected: boolean
  headers: [string, string][]
  body: Uint8Array
}

const MAX_URL_CHARS = 16 * 1024
const MAX_HEADERS = 100
const MAX_HEADER_CHARS = 16 * 1024
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const NORMALIZED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH'])
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK'])
/** Headers the host's HTTP client owns; a guest value would break or smuggle the framing. */
const HOST_OWNED_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'proxy-connection',
])
const REDIRECT_MODES = new Set(['follow', 'error', 'manual'])

function refuse(message: string): never {
  throw new FetchRefusal(message)
}

function field(record: object, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(record, key) ? (record as Record<string, unknown>)[key] : undefined
}

/** Checks the decoded arguments of the guest's reserved `fetch` call. */
export function readGuestRequest(raw: unknown): GuestRequest {
  if (typeof raw !== 'object' || raw === null) refuse('malformed fetch request')
  const url = field(raw, 'url')
  if (typeof url !== 'string' || url.length > MAX_URL_CHARS) refuse(`the URL must be a string of at most ${MAX_URL_CHARS} characters`)
  const rawMethod = field(raw, 'method') ?? 'GET'
  if (typeof rawMethod !== 'string' || !TOKEN.test(rawMethod))
    refuse(`${typeof rawMethod === 'string' ? JSON.stringify(rawMethod.slice(0, 40)) : typeof rawMethod} is not a valid HTTP method`)
  const upper = rawMethod.toUpperCase()
  if (FORBIDDEN_METHODS.has(upper)) refuse(`the method ${upper} is not allowed`)
  const method = NORMALIZED_METHODS.has(upper) ? upper : rawMethod
  const headers = readHeaders(field(raw, 'headers') ?? [])
  const rawBody = field(raw, 'body')
  let body: Uint8Array | undefined
  if (typeof rawBody === 'string') body = new TextEncoder().encode(rawBody)
  else if (rawBody instanceof Uint8Array) body = rawBody
  else if (rawBody !== undefined && rawBody !== null) refuse('the body must be a string, an ArrayBuffer or a typed array')
  if (body !== undefined && (method === 'GET' || method === 'HEAD')) refuse(`a ${method} request cannot have a body`)
  const redirect = field(raw, 'redirect') ?? 'follow'
  if (typeof redirect !== 'string' || !REDIRECT_MODES.has(redirect)) refuse('redirect must be "follow", "error" or "manual"')
  return { url, method, headers, body, redirect: redirect as RedirectMode }
}

function readHeaders(raw: unknown): [string, string][] {
  if (!Array.isArray(raw) || raw.length > MAX_HEADERS) refuse(`headers must be a list of at most ${MAX_HEADERS} [name, value] pairs`)
  const out: [string, string][] = []
  for (const pair of raw as unknown[]) {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') {
      refuse('each header must be a [name, value] pair of strings')
    }
    const [name, value] = pair as [string, string]
    if (!TOKEN.test(name)) refuse(`${JSON.stringify(name.slice(0, 80))} is not a valid header name`)
    // CR and LF would start a new header or the body (request smuggling); NUL is never valid.
    if (/[\r\n\0]/.test(value)) refuse(`the value of header ${name} contains CR, LF or NUL`)
    if (value.length > MAX_HEADER_CHARS) refuse(`the value of header ${name} is longer than ${MAX_HEADER_CHARS} characters`)
    const lower = name.toLowerCase()
    if (HOST_OWNED_HEADERS.has(lower) || lower.startsWith('proxy-')) refuse(`the header ${lower} is set by the host, not the guest`)
    out.push([lower, value.trim()])
  }
  return out
}
