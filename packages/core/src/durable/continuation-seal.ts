import { SandboxError } from '../errors.js'
import { fromBase64Url, toBase64Url } from './base64url.js'
import { isContinuationState, type ContinuationState } from './continuation-state.js'
import type { ResolvedDurableOptions } from './durable-options.js'

/**
 * The continuation token: `c1.<state>.<mac>` (state is base64url JSON) or, encrypted,
 * `c1e.<iv + AES-256-GCM ciphertext>.<mac>`. The HMAC-SHA-256 covers everything before its dot.
 * Both keys are derived from the host key with HKDF, so one secret serves both jobs safely.
 */
const PLAIN = 'c1'
const ENCRYPTED = 'c1e'
const IV_BYTES = 12

type Subtle = typeof globalThis.crypto.subtle
type CryptoKey = Awaited<ReturnType<Subtle['importKey']>>

interface DerivedKeys {
  mac: CryptoKey
  aes: CryptoKey
}

const derived = new WeakMap<Uint8Array, Promise<DerivedKeys>>()

function subtle(): Subtle {
  const value = globalThis.crypto?.subtle
  if (value === undefined) throw new SandboxError('UNSUPPORTED', 'durable runs need WebCrypto (globalThis.crypto.subtle)')
  return value
}

function deriveKeys(secret: Uint8Array): Promise<DerivedKeys> {
  let keys = derived.get(secret)
  if (keys === undefined) {
    keys = (async () => {
      const base = await subtle().importKey('raw', secret, 'HKDF', false, ['deriveKey'])
      const hkdf = (info: string) => ({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: new TextEncoder().encode(info) })
      const [mac, aes] = await Promise.all([
        subtle().deriveKey(hkdf('cordon continuation mac v1'), base, { name: 'HMAC', hash: 'SHA-256', length: 256 }, false, [
          'sign',
          'verify',
        ]),
        subtle().deriveKey(hkdf('cordon continuation aes v1'), base, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']),
      ])
      return { mac, aes }
    })()
    derived.set(secret, keys)
  }
  return keys
}

const bytesOf = (text: string) => new TextEncoder().encode(text)

export async function sealContinuation(state: ContinuationState, options: ResolvedDurableOptions): Promise<string> {
  const keys = await deriveKeys(options.keys[0]!)
  const json = bytesOf(JSON.stringify(state))
  let head: string
  if (options.encrypt) {
    const iv = globalThis.crypto.getRandomValues(new Uint8Array(IV_BYTES))
    const sealed = new Uint8Array(await subtle().encrypt({ name: 'AES-GCM', iv }, keys.aes, json))
    const body = new Uint8Array(IV_BYTES + sealed.length)
    body.set(iv)
    body.set(sealed, IV_BYTES)
    head = `${ENCRYPTED}.${toBase64Url(body)}`
  } else {
    head = `${PLAIN}.${toBase64Url(json)}`
  }
  const mac = new Uint8Array(await subtle().sign('HMAC', keys.mac, bytesOf(head)))
  return `${head}.${toBase64Url(mac)}`
}

function refused(message: string): SandboxError {
  return new SandboxError('INVALID_CONTINUATION', `continuation refused: ${message}`)
}

/**
 * The state in a continuation, or a thrown INVALID_CONTINUATION: not a continuation, signed with
 * none of the keys (tampered or foreign), unreadable, or older than `maxAgeMs`.
 */
export async function openContinuation(token: unknown, options: ResolvedDurableOptions, now = Date.now()): Promise<ContinuationState> {
  if (typeof token !== 'string') throw refused('a continuation is a string')
  const parts = token.split('.')
  if (parts.length !== 3 || (parts[0] !== PLAIN && parts[0] !== ENCRYPTED)) throw refused('this is not a cordon continuation')
  let body: Uint8Array
  let mac: Uint8Array
  try {
    body = fromBase64Url(parts[1]!)
    mac = fromBase64Url(parts[2]!)
  } catch {
    throw refused('it is not base64url')
  }
  const head = bytesOf(`${parts[0]}.${parts[1]}`)
  let keys: DerivedKeys | undefined
  for (const secret of options.keys) {
    const candidate = await deriveKeys(secret)
    if (await subtle().verify('HMAC', candidate.mac, mac, head)) {
      keys = candidate
      break
    }
  }
  if (keys === undefined) throw refused('its signature matches none of the keys (it was changed, or signed with another key)')
  let json: Uint8Array = body
  if (parts[0] === ENCRYPTED) {
    if (!options.encrypt) throw refused('it is encrypted; this sandbox reads plain continuations (durable.encrypt is false)')
    try {
      json = new Uint8Array(await subtle().decrypt({ name: 'AES-GCM', iv: body.subarray(0, IV_BYTES) }, keys.aes, body.subarray(IV_BYTES)))
    } catch {
      throw refused('it could not be decrypted')
    }
  } else if (options.encrypt) {
    throw refused('it is not encrypted; this sandbox requires encrypted continuations (durable.encrypt is true)')
  }
  let state: unknown
  try {
    state = JSON.parse(new TextDecoder().decode(json))
  } catch {
    throw refused('its content is not JSON')
  }
  if (!isContinuationState(state)) throw refused('its content is not a state this version of @cordon/core can resume')
  const age = now - state.issuedAt
  if (age > options.maxAgeMs) throw refused(`it expired: it was made ${age} ms ago, more than durable.maxAgeMs (${options.maxAgeMs} ms)`)
  return state
}
