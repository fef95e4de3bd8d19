/**
 * The text a program was parsed from (the user's code without its Markdown fence, a shebang line
 * emptied), kept beside the program for whoever maps positions further (the debugger's source map).
 */
import type { NormalizedProgram } from './types.js'

const bodies = new WeakMap<NormalizedProgram, string>()

export function rememberBody(program: NormalizedProgram, body: string): void {
  bodies.set(program, body)
}

/** Undefined for a program that lost its identity (cloned, serialised). */
export function bodyOf(program: NormalizedProgram): string | undefined {
  return bodies.get(program)
}
