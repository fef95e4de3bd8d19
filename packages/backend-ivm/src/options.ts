import { SandboxError, describeOptionValue } from '@cordon/core/backend'
import type { IsolatedVmSource } from './engine-loader.js'

export interface IvmBackendOptions {
  /**
   * isolated-vm itself, or a function returning it (sync or async). By default the
   * backend tries `isolated-vm`, then the aliases `isolated-vm-6` and `isolated-vm-5`
   * from its optional dependencies, on first use.
   */
  isolatedVm?: IsolatedVmSource
  /** Isolates created ahead of time to hide creation latency (each serves one run). 0 turns it off. Default 2. */
  poolSize?: number
  /**
   * Most isolates the pool keeps ready while runs come back to back (see the README's "Runs back
   * to back"); `poolSize` or less keeps it at `poolSize`. Default 8 × `poolSize`.
   */
  poolBurstSize?: number
  /** The pool's isolates are disposed after this many ms without a run. Default 30 000. */
  poolIdleMs?: number
  /**
   * Called (with isolated-vm's message) each time isolated-vm loses control of an isolate: V8
   * ran out of memory in a way isolated-vm could not contain. The backend handles this itself
   * either way: the run in that isolate ends MEMORY_LIMIT and later runs use new isolates. The
   * lost isolate's thread and heap stay until the process ends, and the process can no longer
   * exit by itself (isolated-vm waits for that thread at exit): use this to plan a restart,
   * ending the process with `process.abort()` or a SIGKILL from a supervisor.
   */
  onCatastrophicError?: (message: string) => void
  /**
   * How many lost isolates (see `onCatastrophicError`) the process may carry before this backend
   * stops taking runs and reports BACKEND_UNAVAILABLE, since each keeps its heap. Counted per
   * process, across backends. Default 3; 0 stops at the first.
   */
  maxLostIsolates?: number
  /**
   * Lets runs of this backend use `inspector` and `cpuProfile` in this process. Off by default:
   * isolated-vm's inspector is not hardened — while the attack corpus ran with a CPU profile on
   * every run, the process died in 2 of 5 full CI runs, cause not found. Turn it on to debug or
   * profile code you trust; for untrusted code use the subprocess backend's isolated-vm engine
   * children, where such a failure ends only the child. Never on Node 26 (see capabilities.ts).
   */
  inspector?: boolean
}

export interface ResolvedIvmOptions {
  isolatedVm: IsolatedVmSource | undefined
  poolSize: number
  poolBurstSize: number
  poolIdleMs: number
  onCatastrophicError: ((message: string) => void) | undefined
  maxLostIsolates: number
  inspector: boolean
}

export const DEFAULT_POOL_SIZE = 2
/** While runs come back to back, the pool keeps up to this many times `poolSize` isolates ready (pool.ts). */
export const POOL_BURST_FACTOR = 8
export const DEFAULT_POOL_IDLE_MS = 30_000
export const DEFAULT_MAX_LOST_ISOLATES = 3

export function resolveIvmOptions(options: IvmBackendOptions = {}): ResolvedIvmOptions {
  if (typeof options !== 'object' || options === null) {
    throw new SandboxError('INVALID_OPTIONS', 'createIvmBackend options must be an object')
  }
  const source = options.isolatedVm
  if (source !== undefined && typeof source !== 'function' && (typeof source !== 'object' || source === null)) {
    throw new SandboxError('INVALID_OPTIONS', 'createIvmBackend: isolatedVm must be the isolated-vm module or a function returning it')
  }
  if (options.inspector !== undefined && typeof options.inspector !== 'boolean') {
    throw new SandboxError('INVALID_OPTIONS', 'createIvmBackend: inspector must be a boolean')
  }
  if (options.onCatastrophicError !== undefined && typeof options.onCatastrophicError !== 'function') {
    throw new SandboxError('INVALID_OPTIONS', 'createIvmBackend: onCatastrophicError must be a function')
  }
  const poolSize = integer('poolSize', options.poolSize, DEFAULT_POOL_SIZE, 0, 64)
  return {
    isolatedVm: source,
    onCatastrophicError: options.onCatastrophicError,
    poolSize,
    poolBurstSize: Math.max(poolSize, integer('poolBurstSize', options.poolBurstSize, POOL_BURST_FACTOR * poolSize, 0, 256)),
    poolIdleMs: integer('poolIdleMs', options.poolIdleMs, DEFAULT_POOL_IDLE_MS, 0, 24 * 60 * 60 * 1000),
    maxLostIsolates: integer('maxLostIsolates', options.maxLostIsolates, DEFAULT_MAX_LOST_ISOLATES, 0, 1000),
    inspector: options.inspector === true,
  }
}

function integer(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new SandboxError(
      'INVALID_OPTIONS',
      `createIvmBackend: ${name} must be an integer from ${min} to ${max}, got ${describeOptionValue(value)}`,
    )
  }
  return value
}
