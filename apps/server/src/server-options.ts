import { availableParallelism } from 'node:os'
import type { SandboxBackend } from '@cordon/core'

export interface ServerOptions {
  /** The token every caller must present (`Authorization: Bearer …`). Required. */
  token: string
  /** Address to listen on. Default `127.0.0.1`. */
  host?: string
  /** Port to listen on; 0 picks a free one. Default 0. */
  port?: number
  /**
   * What runs the programs: a backend name for @cordon/select (`subprocess`, `ivm`, `quickjs`), or
   * `auto` (default) for the strongest that works here; or a backend instance the server owns.
   */
  backend?: string | SandboxBackend
  /** Runs and sessions at once; one more is refused at once with `BUSY`. Default 4 per core. */
  maxRuns?: number
  /** The largest limits a caller may ask for. Defaults: 300,000 ms and 512 MB. */
  maxLimits?: { timeoutMs?: number; memoryMb?: number }
  /** The largest message from a caller, in bytes. Default 64 MiB. */
  maxMessageBytes?: number
  /** Serve HTTPS and `wss://` with this certificate and key (PEM). */
  tls?: { cert: string; key: string }
  /** How long `drain()` lets runs in flight finish before it ends them. Default 30,000 ms. */
  drainTimeoutMs?: number
  /**
   * How long a connection without a run or session stays open for its caller's next run (callers
   * keep theirs for 2 s by default). Default 10,000 ms.
   */
  idleConnectionMs?: number
  /** Where structured log entries go. Default: one JSON line each on stdout. */
  log?: (entry: LogEntry) => void
}

export interface LogEntry {
  time: string
  level: 'info' | 'warn' | 'error'
  msg: string
  [field: string]: unknown
}

export interface ResolvedServerOptions {
  token: string
  host: string
  port: number
  backend: string | SandboxBackend
  maxRuns: number
  maxLimits: { timeoutMs: number; memoryMb: number }
  maxMessageBytes: number
  tls: { cert: string; key: string } | undefined
  drainTimeoutMs: number
  idleConnectionMs: number
  log: (entry: LogEntry) => void
}

export const DEFAULT_MAX_LIMITS = Object.freeze({ timeoutMs: 300_000, memoryMb: 512 })
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000
export const DEFAULT_IDLE_CONNECTION_MS = 10_000

function positive(value: unknown, name: string, fallback: number, min = 1): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min)
    throw new TypeError(`cordon-server: ${name} must be an integer of at least ${min}, got ${JSON.stringify(value)}`)
  return value
}

export function resolveServerOptions(options: ServerOptions): ResolvedServerOptions {
  if (typeof options.token !== 'string' || options.token.length < 16)
    throw new TypeError('cordon-server: the token must be a string of at least 16 characters (CORDON_SERVER_TOKEN)')
  if (options.tls !== undefined && (typeof options.tls.cert !== 'string' || typeof options.tls.key !== 'string'))
    throw new TypeError('cordon-server: tls needs cert and key, both PEM text')
  return {
    token: options.token,
    host: options.host ?? '127.0.0.1',
    port: positive(options.port, 'port', 0, 0),
    backend: options.backend ?? 'auto',
    maxRuns: positive(options.maxRuns, 'maxRuns', 4 * availableParallelism()),
    maxLimits: {
      timeoutMs: positive(options.maxLimits?.timeoutMs, 'maxLimits.timeoutMs', DEFAULT_MAX_LIMITS.timeoutMs),
      memoryMb: positive(options.maxLimits?.memoryMb, 'maxLimits.memoryMb', DEFAULT_MAX_LIMITS.memoryMb),
    },
    maxMessageBytes: positive(options.maxMessageBytes, 'maxMessageBytes', DEFAULT_MAX_MESSAGE_BYTES),
    tls: options.tls,
    drainTimeoutMs: positive(options.drainTimeoutMs, 'drainTimeoutMs', DEFAULT_DRAIN_TIMEOUT_MS, 0),
    idleConnectionMs: positive(options.idleConnectionMs, 'idleConnectionMs', DEFAULT_IDLE_CONNECTION_MS),
    log: options.log ?? ((entry) => process.stdout.write(JSON.stringify(entry) + '\n')),
  }
}
