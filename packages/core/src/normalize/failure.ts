import type { NormalizeResult, NormalizeSyntaxError } from './types.js'

/** A program that cannot run, as normalization reports it: a SyntaxError at a user position. */
export function failure(message: string, line: number, column: number): NormalizeResult {
  const error: NormalizeSyntaxError = { name: 'SyntaxError', message, line, column }
  return { ok: false, error }
}
