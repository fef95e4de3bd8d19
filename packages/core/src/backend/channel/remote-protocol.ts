/**
 * The channel protocol over a socket (`@cordon/backend-remote` ↔ `cordon-server`): one WebSocket
 * per session, and one per one-off run at a time (a caller may keep it for its next one-off run),
 * each message one batch as JSON text. Before the upgrade the server
 * checks the token and its capacity; a refusal is an HTTP status with the reason in a header, so
 * a load balancer can retry it elsewhere, and the caller knows nothing was started.
 */
import { BOOLEAN_CAPABILITIES, ISOLATION_KINDS, type BackendCapabilities } from '../v1/capabilities.js'

export const REMOTE_CHANNEL_PATH = '/v1/channel'
export const REMOTE_INFO_PATH = '/v1/info'

/** Request headers: the caller's id for the run (the server logs it), and the run's partition. */
export const RUN_ID_HEADER = 'x-cordon-run-id'
export const PARTITION_HEADER = 'x-cordon-partition'
/** Response header of a refused upgrade (status 503): `busy` or `draining`. */
export const REFUSAL_HEADER = 'x-cordon-refusal'

export type RemoteRefusal = 'busy' | 'draining'

/**
 * The close code of a connection the server ended while it had no run in flight (idle too long,
 * or draining). The server started nothing it received after its last report, so a run whose
 * order crossed this close was never started: the caller may send it again elsewhere.
 */
export const IDLE_CLOSE_CODE = 4001

/** What `GET /v1/info` answers: who runs the programs, and the server's own caps. */
export interface ServerInfo {
  channelVersion: number
  /** The name of the backend the server runs programs on. */
  backend: string
  capabilities: BackendCapabilities
  /** The largest limits a run may ask for there (larger is INVALID_OPTIONS). */
  maxLimits: { timeoutMs: number; memoryMb: number }
  /** The largest message the server accepts, in bytes. */
  maxMessageBytes: number
}

const positive = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0

/** The info in `value` (a server's answer: untrusted), rebuilt from known fields, or why it is not. */
export function parseServerInfo(value: unknown): ServerInfo | string {
  if (typeof value !== 'object' || value === null) return 'not an object'
  const record = value as Record<string, unknown>
  if (!positive(record.channelVersion)) return 'no channel version'
  if (typeof record.backend !== 'string' || record.backend.length === 0 || record.backend.length > 100) return 'no backend name'
  const given = record.capabilities as Record<string, unknown> | null
  if (typeof given !== 'object' || given === null) return 'no capabilities'
  if (!ISOLATION_KINDS.includes(given.isolation as BackendCapabilities['isolation'])) return 'unknown isolation'
  const capabilities = { isolation: given.isolation } as BackendCapabilities
  for (const flag of BOOLEAN_CAPABILITIES) {
    if (typeof given[flag] !== 'boolean') return 'capability ' + flag + ' is not a boolean'
    capabilities[flag] = given[flag]
  }
  const limits = record.maxLimits as Record<string, unknown> | null
  if (typeof limits !== 'object' || limits === null || !positive(limits.timeoutMs) || !positive(limits.memoryMb)) return 'no limit caps'
  if (!positive(record.maxMessageBytes)) return 'no message cap'
  return {
    channelVersion: record.channelVersion,
    backend: record.backend,
    capabilities,
    maxLimits: { timeoutMs: limits.timeoutMs, memoryMb: limits.memoryMb },
    maxMessageBytes: record.maxMessageBytes,
  }
}
