import { LIMIT_ERROR_CODES, type ErrorCode } from '@cordon/core/errors'

/**
 * The exit status of every `cordon` command. Each kind of failure has its own code so that
 * scripts can tell "the program is wrong" from "the program went over a limit" from "you
 * called cordon wrong" from "this machine cannot sandbox".
 */
export const EXIT = {
  OK: 0,
  /** The guest program failed: SYNTAX_ERROR, RUNTIME_ERROR. */
  GUEST_ERROR: 1,
  /** The command line is wrong: flags, missing files, bad globals or tools, INVALID_OPTIONS. */
  USAGE: 2,
  /** The program went over a limit: TIMEOUT, MEMORY_LIMIT, OUTPUT_LIMIT, TOOL_CALL_LIMIT, CODE_LIMIT. */
  LIMIT: 3,
  /** No sandbox could do it: BACKEND_UNAVAILABLE, BACKEND_CRASHED, UNSUPPORTED, BUSY, INTERNAL. */
  BACKEND: 4,
  /** Interrupted (ABORTED): 128 + the signal's number, as shells do. */
  SIGINT: 130,
  SIGTERM: 143,
} as const

/** For `--help` and the README: one line per code. */
export const EXIT_CODES_HELP = `Exit codes:
  0    the program ran and gave a value
  1    the program failed: SYNTAX_ERROR, RUNTIME_ERROR
  2    usage error: bad flags, unreadable program, bad --globals or --tools, INVALID_OPTIONS
  3    the program went over a limit: TIMEOUT, MEMORY_LIMIT, OUTPUT_LIMIT, TOOL_CALL_LIMIT, CODE_LIMIT
  4    no sandbox could run it: BACKEND_UNAVAILABLE, BACKEND_CRASHED, UNSUPPORTED, BUSY, INTERNAL
  130  interrupted by Ctrl-C (SIGINT), 143 by SIGTERM: ABORTED`

/**
 * The exit status for an error code, from a RunResult or a thrown SandboxError.
 * `interruptedBy` is the signal that made the CLI abort the run, if any: whatever the run
 * then ended with, the user stopped it.
 */
export function exitCodeFor(code: ErrorCode, interruptedBy?: NodeJS.Signals): number {
  if (interruptedBy !== undefined || code === 'ABORTED') return interruptedBy === 'SIGTERM' ? EXIT.SIGTERM : EXIT.SIGINT
  if (code === 'SYNTAX_ERROR' || code === 'RUNTIME_ERROR') return EXIT.GUEST_ERROR
  if (code === 'INVALID_OPTIONS') return EXIT.USAGE
  if (LIMIT_ERROR_CODES.includes(code)) return EXIT.LIMIT
  return EXIT.BACKEND
}
