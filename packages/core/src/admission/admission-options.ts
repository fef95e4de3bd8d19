import { SandboxError } from '../errors.js'
import { describeOptionValue } from '../limits.js'

/** `createSandbox(backend, { maxConcurrentRuns, maxQueueMs })`: how many runs may be in flight at once. */
export interface AdmissionOptions {
  /**
   * Runs in flight at once across the sandbox: `run`, `resume` and every session's runs. When all
   * places are taken, a new run ends at once with BUSY (or waits up to `maxQueueMs`). Unbounded
   * when absent.
   */
  maxConcurrentRuns?: number
  /**
   * How long a run may wait for a place when `maxConcurrentRuns` are in flight, in ms; it then ends
   * with BUSY. Default 0: refuse at once. The wait counts against the run's `timeoutMs`, and its
   * `signal` ends it (ABORTED).
   */
  maxQueueMs?: number
}

export interface ResolvedAdmission {
  maxConcurrentRuns: number
  maxQueueMs: number
}

export const ADMISSION_OPTION_NAMES = ['maxConcurrentRuns', 'maxQueueMs'] as const

const MAX_RUNS = 1_000_000
const MAX_QUEUE_MS = 24 * 60 * 60 * 1000

function invalid(message: string): never {
  throw new SandboxError('INVALID_OPTIONS', `createSandbox defaults: ${message}`)
}

function integer(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    invalid(`${name} must be an integer from ${min} to ${max}, got ${describeOptionValue(value)}`)
  }
  return value
}

/** Checks the admission options of sandbox defaults; undefined when runs are not counted. */
export function resolveAdmission(options: AdmissionOptions): ResolvedAdmission | undefined {
  const { maxConcurrentRuns, maxQueueMs } = options
  if (maxConcurrentRuns === undefined) {
    if (maxQueueMs !== undefined) invalid('maxQueueMs needs maxConcurrentRuns (there is no queue without a bound on runs)')
    return undefined
  }
  return {
    maxConcurrentRuns: integer('maxConcurrentRuns', maxConcurrentRuns, 1, MAX_RUNS),
    maxQueueMs: maxQueueMs === undefined ? 0 : integer('maxQueueMs', maxQueueMs, 0, MAX_QUEUE_MS),
  }
}
