import { SandboxError } from '../errors.js'
import { describeOptionValue } from '../limits.js'

/** `createSandbox(backend, { durable })`: what lets a run pause (`ctx.interrupt`) and resume later. */
export interface DurableOptions {
  /**
   * Secret keys for the continuation's HMAC-SHA-256 signature, each at least 32 bytes (a string is
   * taken as UTF-8). The first signs; any of them verifies, so a key is rotated by putting the new
   * one first and dropping the old one once its continuations have expired.
   */
  keys: readonly (string | Uint8Array)[]
  /**
   * Also encrypt the continuation (AES-256-GCM, key derived from the signing key), so that whoever
   * holds it cannot read the code, the globals or the recorded tool results. Default false: the
   * continuation is signed but readable (base64url JSON).
   */
  encrypt?: boolean
  /** How long after the pause a continuation is accepted, in ms. Default 24 hours. */
  maxAgeMs?: number
  /**
   * Makes continuations single-use: called with a continuation's id (`RunInterrupted.continuationId`)
   * once it is verified, before anything runs; return false when that id was claimed before (keep
   * the ids, e.g. in your database, for `maxAgeMs`), and `resume` throws INVALID_CONTINUATION.
   * Without it, a continuation can be resumed any number of times, and the calls after its pause
   * run each time.
   */
  claim?: (continuationId: string) => boolean | Promise<boolean>
}

export interface ResolvedDurableOptions {
  keys: readonly Uint8Array[]
  encrypt: boolean
  maxAgeMs: number
  claim: ((continuationId: string) => boolean | Promise<boolean>) | undefined
}

export const DEFAULT_CONTINUATION_MAX_AGE_MS = 24 * 60 * 60 * 1000
const MIN_KEY_BYTES = 32
const MAX_AGE_LIMIT_MS = 365 * 24 * 60 * 60 * 1000

function invalid(message: string): never {
  throw new SandboxError('INVALID_OPTIONS', `createSandbox defaults: durable: ${message}`)
}

export function resolveDurableOptions(options: unknown): ResolvedDurableOptions | undefined {
  if (options === undefined) return undefined
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    invalid(`must be an object { keys, encrypt?, maxAgeMs? }, got ${describeOptionValue(options)}`)
  }
  const record = options as Record<string, unknown>
  for (const key of Object.keys(record)) {
    if (key !== 'keys' && key !== 'encrypt' && key !== 'maxAgeMs' && key !== 'claim') invalid(`unknown option "${key}"`)
  }
  const keys = record.keys
  if (!Array.isArray(keys) || keys.length === 0) invalid('keys must be a non-empty array of secrets (the first signs)')
  const bytes = keys.map((key: unknown, index) => {
    const raw = typeof key === 'string' ? new TextEncoder().encode(key) : key instanceof Uint8Array ? Uint8Array.from(key) : undefined
    if (raw === undefined) invalid(`keys[${index}] must be a string or a Uint8Array`)
    if (raw.length < MIN_KEY_BYTES) invalid(`keys[${index}] is ${raw.length} bytes; a key needs at least ${MIN_KEY_BYTES}`)
    return raw
  })
  if (record.encrypt !== undefined && typeof record.encrypt !== 'boolean') invalid('encrypt must be a boolean')
  const maxAgeMs = record.maxAgeMs ?? DEFAULT_CONTINUATION_MAX_AGE_MS
  if (typeof maxAgeMs !== 'number' || !Number.isInteger(maxAgeMs) || maxAgeMs < 1 || maxAgeMs > MAX_AGE_LIMIT_MS) {
    invalid(`maxAgeMs must be an integer from 1 to ${MAX_AGE_LIMIT_MS}, got ${describeOptionValue(maxAgeMs)}`)
  }
  if (record.claim !== undefined && typeof record.claim !== 'function') invalid('claim must be a function (continuationId) => boolean')
  return { keys: bytes, encrypt: record.encrypt === true, maxAgeMs, claim: record.claim as ResolvedDurableOptions['claim'] }
}
