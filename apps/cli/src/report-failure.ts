import { isSandboxError } from '@cordon/core/errors'
import { painter, wantsColor } from './colors.js'
import { EXIT, exitCodeFor } from './exit-codes.js'
import { failureDocument } from './format-json.js'
import type { OutputLine } from './format-result.js'
import { writeLine } from './output.js'
import { UsageError } from './usage-error.js'

/**
 * Reports an error thrown before or around a run (never a guest failure: those are
 * RunResults) and returns the exit code: 2 for the command line, the code's own exit
 * status for a SandboxError (INVALID_OPTIONS → 2, BACKEND_UNAVAILABLE → 4), 4 for a bug.
 */
export function reportFailure(
  error: unknown,
  json: boolean,
  backend: string | null = null,
  out: { write(line: OutputLine): void; colorStderr: boolean } = { write: writeLine, colorStderr: wantsColor(process.stderr) },
): number {
  const { code, message, fix, exit, stack, usage } = classify(error)
  if (json) {
    out.write({ stream: 'stdout', text: failureDocument(code, message, fix, backend) })
    return exit
  }
  const writeStderr = (text: string) => out.write({ stream: 'stderr', text })
  const paint = painter(out.colorStderr)
  writeStderr(`${paint('red', 'cordon:')} ${usage ? '' : `${paint('bold', code)}: `}${message}`)
  if (fix !== undefined && !message.includes(fix)) writeStderr(`${paint('bold', 'fix:')} ${fix}`)
  if (stack !== undefined) writeStderr(paint('dim', stack))
  if (exit === EXIT.USAGE) writeStderr(paint('dim', "(run 'cordon --help' for usage)"))
  return exit
}

interface Classified {
  /** An error code of @cordon/core: the CLI's own usage errors are INVALID_OPTIONS too. */
  code: string
  /** A usage error of the CLI: printed without its code. */
  usage?: boolean
  message: string
  fix: string | undefined
  exit: number
  stack?: string
}

function classify(error: unknown): Classified {
  if (error instanceof UsageError) return { code: 'INVALID_OPTIONS', usage: true, message: error.message, fix: error.fix, exit: EXIT.USAGE }
  if (isSandboxError(error)) return { code: error.code, message: error.message, fix: error.fix, exit: exitCodeFor(error.code) }
  // Anything else is a bug in cordon: keep the stack for the report.
  const message = error instanceof Error ? error.message : String(error)
  const stack = error instanceof Error ? error.stack : undefined
  return { code: 'INTERNAL', message, fix: undefined, exit: EXIT.BACKEND, ...(stack !== undefined && { stack }) }
}
