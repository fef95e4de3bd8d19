/**
 * The host side of one run's guarded fetch: checks each request, follows redirects by hand (each
 * hop allowed, counted and resolved to an allowed address again), reads the body up to the run's
 * budget, and keeps the run's counts. One undici Agent per run, destroyed when the run ends.
 */
import { STATUS_CODES } from 'node:http'
import type { Agent } from 'undici'
import type { FetchPolicy } from './fetch-options.js'
import { FetchRefusal } from './fetch-refusal.js'
import { createGuardedAgent, loadUndici, type Undici } from './guarded-agent.js'
import { readGuestRequest, type GuestRequest, type GuestResponse } from './request-shape.js'
import { applySecrets, redactBytes, redactText } from './secrets.js'
import { checkUrl } from './check-url.js'

const REDIRECTS = new Set([301, 302, 303, 307, 308])
/** Headers that must not follow a redirect to another origin (WHATWG fetch drops the first). */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie'])
const BODY_HEADERS = new Set(['content-type', 'content-encoding', 'content-language', 'content-location'])

export class RunFetcher {
  requests = 0
  private sentBytes = 0
  private receivedBytes = 0
  private agent: Promise<Agent> | undefined
  private closed = false

  constructor(private readonly policy: FetchPolicy) {}

  /** One guest fetch; rejects with a FetchRefusal (or the run's end) and never with a secret in it. */
  async fetch(raw: unknown, runSignal: AbortSignal): Promise<GuestResponse> {
    try {
      return await this.perform(readGuestRequest(raw), runSignal)
    } catch (error) {
      if (runSignal.aborted) throw new Error('the run has ended', { cause: error })
      const message = error instanceof FetchRefusal ? error.message : `fetch failed: ${describe(error)}`
      throw new FetchRefusal(redactText(message, this.policy.secrets))
    }
  }

  close(): void {
    this.closed = true
    void this.agent?.then((agent) => agent.destroy()).catch(() => undefined)
  }

  private dispatcher(): Promise<Agent> {
    this.agent ??= loadUndici().then(async (undici) => {
      const agent = createGuardedAgent(undici, this.policy)
      if (this.closed) await agent.destroy()
      return agent
    })
    return this.agent
  }

  private async perform(request: GuestRequest, runSignal: AbortSignal): Promise<GuestResponse> {
    const { policy } = this
    // The time per request counts from here: loading undici (once per process) is cordon's own
    // cost, and the run's deadline bounds it.
    const undici = await loadUndici()
    const dispatcher = await this.dispatcher()
    const timeout = AbortSignal.timeout(policy.requestTimeoutMs)
    const signal = AbortSignal.any([runSignal, timeout])
    let verdict = checkUrl(request.url, policy.origins)
    let { method, body } = request
    let headers = request.headers
    let redirected = false
    for (let hop = 0; ; hop++) {
      if (!verdict.ok) throw new FetchRefusal(hop === 0 ? verdict.reason : `redirect refused: ${verdict.reason}`)
      const url = verdict.url
      if (++this.requests > policy.maxRequests)
        throw new FetchRefusal(`too many requests: more than fetch.maxRequests (${policy.maxRequests}) in this run`)
      const secrets = applySecrets(headers, url.hostname, policy.secrets)
      if (!secrets.ok) throw new FetchRefusal(secrets.reason)
      if (body !== undefined) {
        this.sentBytes += body.byteLength
        if (this.sentBytes > policy.maxRequestBytes) {
          throw new FetchRefusal(
            `request too large: the run's request bodies exceed fetch.maxRequestBytes (${policy.maxRequestBytes} bytes)`,
          )
        }
      }
      let response: Awaited<ReturnType<Undici['request']>>
      try {
        response = await undici.request(dispatcher, url, { method, headers: secrets.headers.flat(), body, signal })
      } catch (error) {
        if (timeout.aborted && !runSignal.aborted) throw new FetchRefusal(`the request timed out after ${policy.requestTimeoutMs} ms`)
        throw error
      }
      const location = response.headers.location
      if (REDIRECTS.has(response.statusCode) && typeof location === 'string' && request.redirect !== 'manual') {
        await response.body.dump().catch(() => undefined)
        if (request.redirect === 'error') throw new FetchRefusal(`redirected (${response.statusCode}) while redirect is "error"`)
        if (hop >= policy.maxRedirects) throw new FetchRefusal(`too many redirects: more than fetch.maxRedirects (${policy.maxRedirects})`)
        let next: string
        try {
          next = new URL(location, url).href
        } catch {
          throw new FetchRefusal('redirect refused: the Location header is not a valid URL')
        }
        verdict = checkUrl(next, policy.origins)
        if (verdict.ok && verdict.url.origin !== url.origin) headers = headers.filter(([name]) => !CREDENTIAL_HEADERS.has(name))
        if (response.statusCode === 303 ? method !== 'HEAD' : response.statusCode <= 302 && method === 'POST') {
          method = 'GET'
          body = undefined
          headers = headers.filter(([name]) => !BODY_HEADERS.has(name))
        }
        redirected = true
        continue
      }
      const bytes = await this.readBody(response.body, timeout, runSignal)
      return {
        status: response.statusCode,
        statusText: STATUS_CODES[response.statusCode] ?? '',
        url: redactText(url.href, policy.secrets),
        redirected,
        headers: responseHeaders(response.headers, policy),
        body: redactBytes(bytes, policy.secrets),
      }
    }
  }

  /** Reads the body until the run's response budget runs out, then stops reading and closes it. */
  private async readBody(body: AsyncIterable<Uint8Array> & { destroy(): void }, timeout: AbortSignal, runSignal: AbortSignal) {
    const chunks: Uint8Array[] = []
    let length = 0
    try {
      for await (const chunk of body) {
        this.receivedBytes += chunk.byteLength
        if (this.receivedBytes > this.policy.maxResponseBytes) {
          body.destroy()
          throw new FetchRefusal(
            `response too large: the run's responses exceed fetch.maxResponseBytes (${this.policy.maxResponseBytes} bytes)`,
          )
        }
        chunks.push(chunk)
        length += chunk.byteLength
      }
    } catch (error) {
      if (timeout.aborted && !runSignal.aborted) throw new FetchRefusal(`the request timed out after ${this.policy.requestTimeoutMs} ms`)
      throw error
    }
    const out = new Uint8Array(length)
    let at = 0
    for (const chunk of chunks) {
      out.set(chunk, at)
      at += chunk.byteLength
    }
    return out
  }
}

function responseHeaders(raw: Record<string, string | string[] | undefined>, policy: FetchPolicy): [string, string][] {
  const out: [string, string][] = []
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue
    for (const one of Array.isArray(value) ? value : [value]) out.push([name.toLowerCase(), redactText(one, policy.secrets)])
  }
  return out
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : ''
  return `${error.message}${cause}`
}
