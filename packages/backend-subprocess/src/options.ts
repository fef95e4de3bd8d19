import { SandboxError } from '@cordon/core'

export type NetworkIsolationMode = 'required' | 'preferred' | 'off'

export interface SubprocessBackendOptions {
  /**
   * Node.js binary the children run on. Default: the running Node (`process.execPath`);
   * under Bun or Deno, the first `node` on PATH.
   */
  nodePath?: string
  /** Ready children kept warm per `memoryMb` value in use. Default 2; 0 spawns a child per run. */
  poolSize?: number
  /** Warm children of a `memoryMb` value are killed after this long without a run. Default 30 000 ms. */
  poolIdleMs?: number
  /**
   * Network namespace for the children (Linux, `unshare`). `'preferred'` (default): used when
   * it works. `'required'`: runs fail with BACKEND_UNAVAILABLE unless the child provably has
   * no network, and `capabilities.networkIsolation` is `true`. `'off'`: never used.
   */
  networkIsolation?: NetworkIsolationMode
  /** How often the host samples a running child's resident memory (Linux /proc). Default 10 ms; 0 turns it off. */
  memoryCheckMs?: number
}

export type ResolvedOptions = Readonly<Required<Omit<SubprocessBackendOptions, 'nodePath'>> & { nodePath: string | undefined }>

const MODES: readonly NetworkIsolationMode[] = ['required', 'preferred', 'off']

export function resolveOptions(options: SubprocessBackendOptions = {}): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw invalid('options must be an object')
  const { nodePath, poolSize = 2, poolIdleMs = 30_000, networkIsolation = 'preferred', memoryCheckMs = 10 } = options
  if (nodePath !== undefined && (typeof nodePath !== 'string' || nodePath === '')) throw invalid('nodePath must be a non-empty string')
  checkInteger('poolSize', poolSize, 0, 64)
  checkInteger('poolIdleMs', poolIdleMs, 0, 24 * 60 * 60 * 1000)
  checkInteger('memoryCheckMs', memoryCheckMs, 0, 60_000)
  if (!MODES.includes(networkIsolation)) throw invalid(`networkIsolation must be one of ${MODES.join(', ')}`)
  return Object.freeze({ nodePath, poolSize, poolIdleMs, networkIsolation, memoryCheckMs })
}

function checkInteger(name: string, value: unknown, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`${name} must be an integer from ${min} to ${max}, got ${String(value)}`)
  }
}

function invalid(message: string): SandboxError {
  return new SandboxError('INVALID_OPTIONS', `createSubprocessBackend: ${message}`)
}
