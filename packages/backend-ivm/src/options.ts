import { SandboxError } from '@cordon/core'
import { describeOptionValue } from '@cordon/core/backend'
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
  /** The pool's isolates are disposed after this many ms without a run. Default 30 000. */
  poolIdleMs?: number
  /**
   * Opt in to surviving isolated-vm's catastrophic errors (a V8 out-of-memory it cannot
   * contain). Without it such an error aborts the process. With it the process lives on,
   * the run ends with MEMORY_LIMIT, this backend refuses further runs, and this function
   * is called: finish outstanding work and end the process (`process.abort()` or a
   * SIGKILL from a supervisor), because a stuck isolate thread keeps it from exiting normally.
   */
  onCatastrophicError?: (message: string) => void
}

export interface ResolvedIvmOptions {
  isolatedVm: IsolatedVmSource | undefined
  poolSize: number
  poolIdleMs: number
  onCatastrophicError: ((message: string) => void) | undefined
}

export const DEFAULT_POOL_SIZE = 2
export const DEFAULT_POOL_IDLE_MS = 30_000

export function resolveIvmOptions(options: IvmBackendOptions = {}): ResolvedIvmOptions {
  if (typeof options !== 'object' || options === null) {
    throw new SandboxError('INVALID_OPTIONS', 'createIvmBackend options must be an object')
  }
  const source = options.isolatedVm
  if (source !== undefined && typeof source !== 'function' && (typeof source !== 'object' || source === null)) {
    throw new SandboxError('INVALID_OPTIONS', 'createIvmBackend: isolatedVm must be the isolated-vm module or a function returning it')
  }
  if (options.onCatastrophicError !== undefined && typeof options.onCatastrophicError !== 'function') {
    throw new SandboxError('INVALID_OPTIONS', 'createIvmBackend: onCatastrophicError must be a function')
  }
  return {
    isolatedVm: source,
    onCatastrophicError: options.onCatastrophicError,
    poolSize: integer('poolSize', options.poolSize, DEFAULT_POOL_SIZE, 0, 64),
    poolIdleMs: integer('poolIdleMs', options.poolIdleMs, DEFAULT_POOL_IDLE_MS, 0, 24 * 60 * 60 * 1000),
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
