/**
 * The undici Agent behind the guarded fetch. Its connector resolves the host itself, refuses
 * unless every address is allowed, connects to the checked address (so a second DNS answer can
 * never be used: no rebinding), and checks the socket's actual peer once connected.
 */
import { lookup as dnsLookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import type { Socket } from 'node:net'
import type { Agent, buildConnector, Dispatcher } from 'undici'
import { addressRefusal } from './address-class.js'
import type { FetchPolicy } from './fetch-options.js'
import { FetchRefusal } from './fetch-refusal.js'
import { loadUndiciFiles } from './undici-steps.js'

/** The three parts of undici the guarded fetch uses. */
export interface Undici {
  Agent: typeof Agent
  buildConnector: typeof buildConnector
  /** `undici.request` on a given dispatcher. */
  request(dispatcher: Dispatcher, url: URL, options: RequestOptions): Promise<Dispatcher.ResponseData>
}
type RequestOptions = Pick<Dispatcher.RequestOptions, 'method' | 'headers' | 'body' | 'signal'>

let loaded: Promise<Undici> | undefined

/**
 * undici's Agent, connector and request, loaded on the first fetch, after one check
 * that the loaded Agent calls our connector. Only these files are loaded, not the package's
 * entry: the entry also loads undici's own fetch, WebSocket, cache and mocks, ~3× the time, and
 * loading is synchronous work on the host's event loop (130 ms against 450 on a slow VM), spread
 * here over one file per turn (undici-steps.ts). Loading files by path also gets the real undici
 * on Bun, which answers the bare specifier `undici` with a stand-in of its own that ignores
 * connectors; should a runtime still substitute it, the check refuses every fetch instead of
 * sending it unguarded.
 */
export function loadUndici(): Promise<Undici> {
  loaded ??= loadUndiciFiles().then(async ({ Agent, buildConnector, request: requestOn }) => {
    const undici: Undici = {
      Agent,
      buildConnector,
      request: (dispatcher, url, options) =>
        requestOn.call(dispatcher, { ...options, origin: url.origin, path: url.pathname + url.search }),
    }
    const sentinel = new Error('cordon connector probe')
    let called = false
    const probe = new undici.Agent({
      connect: (_options: unknown, callback: (error: Error, socket: null) => void) => {
        called = true
        callback(sentinel, null)
      },
    })
    try {
      // Port 9 (discard) on loopback: were the connector ignored, nothing listens there.
      await undici.request(probe, new URL('http://127.0.0.1:9/'), { method: 'GET' }).catch(() => undefined)
    } finally {
      // A stand-in Agent may have no destroy at all (Bun's has none).
      await Promise.resolve()
        .then(() => probe.destroy())
        .catch(() => undefined)
    }
    if (!called) throw new FetchRefusal("the guarded fetch is unavailable: this runtime's undici ignores custom connectors")
    return undici
  })
  return loaded
}

async function resolveAddresses(hostname: string, policy: FetchPolicy): Promise<string[]> {
  if (isIP(hostname) !== 0) return [hostname]
  if (policy.lookup !== undefined) {
    const answer = await policy.lookup(hostname)
    if (!Array.isArray(answer) || answer.length === 0) throw new FetchRefusal(`${hostname} did not resolve`)
    return answer.map(String)
  }
  const answer = await dnsLookup(hostname, { all: true, verbatim: true })
  if (answer.length === 0) throw new FetchRefusal(`${hostname} did not resolve`)
  return answer.map((entry) => entry.address)
}

/** Why connecting to `hostname` (already allowed by origin) is refused, and the address to use. */
export async function pickAddress(hostname: string, policy: FetchPolicy): Promise<string> {
  const literal = isIP(hostname) !== 0
  const addresses = await resolveAddresses(hostname, policy)
  // Every answer must pass, not just the first: a mixed answer is a rebinding attempt.
  for (const address of addresses) {
    const refusal = addressRefusal(address, literal && policy.allowPrivateAddresses)
    if (refusal !== undefined) throw new FetchRefusal(`${hostname} resolves to a refused address: ${refusal}`)
  }
  return addresses[0] as string
}

interface ConnectOptions {
  hostname: string
  host?: string
  protocol: string
  port: string
  servername?: string
  localAddress?: string | null
  httpSocket?: Socket
}
type Connected = (error: Error | null, socket: Socket | null) => void

export function createGuardedAgent(undici: Undici, policy: FetchPolicy): Agent {
  const base = undici.buildConnector({ timeout: policy.requestTimeoutMs })
  const connect = (options: ConnectOptions, callback: Connected): void => {
    const literal = isIP(options.hostname) !== 0
    pickAddress(options.hostname, policy).then(
      (address) => {
        // Connect to the checked address; TLS still verifies the certificate for the host name.
        base({ ...options, hostname: address }, (error, socket) => {
          if (error !== null) return callback(error, null)
          const peer = socket.remoteAddress
          const refusal = peer === undefined ? 'the peer address is unknown' : addressRefusal(peer, literal && policy.allowPrivateAddresses)
          if (refusal !== undefined) {
            socket.destroy()
            return callback(new FetchRefusal(`the connection to ${options.hostname} was refused: ${refusal}`), null)
          }
          callback(null, socket)
        })
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    )
  }
  // undici.request follows no redirects itself: the guarded fetch follows them hop by hop.
  return new undici.Agent({ connect: connect as never })
}
