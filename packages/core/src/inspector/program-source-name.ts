import type { NormalizedProgram } from '../normalize/types.js'

/** The name the user's code has in the debugger and in CPU profiles. */
export function programSourceName(program: NormalizedProgram): string {
  return program.language === 'ts' ? 'cordon:///program.ts' : 'cordon:///program.js'
}
