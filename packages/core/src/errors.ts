/**
 * Every error code a run can end with, plus the codes thrown for host misuse (INVALID_OPTIONS,
 * DISPOSED, INVALID_CONTINUATION), never returned in a RunResult.
 */
export const ERROR_CODES = [
  'SYNTAX_ERROR',
  'RUNTIME_ERROR',
  'TIMEOUT',
  'MEMORY_LIMIT',
  'OUTPUT_LIMIT',
  'TOOL_CALL_LIMIT',
  'CODE_LIMIT',
  'ABORTED',
  'UNSUPPORTED',
  'BACKEND_UNAVAILABLE',
  'BACKEND_CRASHED',
  'INTERNAL',
  /** A tool paused the run (`ctx.interrupt`, `needsApproval`); the result carries a continuation. */
  'INTERRUPTED',
  /** A resumed program made a tool call other than the one recorded at its place, or too few. */
  'REPLAY_DIVERGED',
  /**
   * The program waited for a promise that nothing could settle: no tool call, timer or fetch was
   * pending, so the run ended at once instead of sleeping until its deadline.
   */
  'DEADLOCK',
  /** The sandbox had `maxConcurrentRuns` runs in flight and no place came free within `maxQueueMs`; the run never started. */
  'BUSY',
  'INVALID_OPTIONS',
  'DISPOSED',
  /** `resume` was given a continuation that is tampered, foreign, expired or for other code or tools. */
  'INVALID_CONTINUATION',
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]

/** Codes that mean a run was stopped because it went over one of its limits. */
export const LIMIT_ERROR_CODES: readonly ErrorCode[] = ['TIMEOUT', 'MEMORY_LIMIT', 'OUTPUT_LIMIT', 'TOOL_CALL_LIMIT', 'CODE_LIMIT']

const BRAND = Symbol.for('@cordon/core.SandboxError')

export interface SandboxErrorOptions {
  cause?: unknown
  /** A hint telling the host how to fix the problem (install command, flag…). */
  fix?: string
}

/**
 * The one error class cordon throws. Branded with a global symbol so that
 * `isSandboxError` works when two copies of @cordon/core are installed.
 */
export class SandboxError extends Error {
  readonly code: ErrorCode
  readonly fix: string | undefined

  constructor(code: ErrorCode, message: string, options: SandboxErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'SandboxError'
    this.code = code
    this.fix = options.fix
    Object.defineProperty(this, BRAND, { value: true })
  }

  static isInstance(value: unknown): value is SandboxError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true
  }
}

export function isSandboxError(value: unknown, code?: ErrorCode): value is SandboxError {
  return SandboxError.isInstance(value) && (code === undefined || value.code === code)
}
