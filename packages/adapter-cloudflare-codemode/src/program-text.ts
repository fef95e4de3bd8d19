import { NAMESPACES_MODULE } from './guest-namespaces.js'

const FENCE_OPENER = /^[ \t]*```/
const FENCE_CLOSER = /^[ \t]*```[ \t]*$/
const IMPORT = `import ${JSON.stringify(NAMESPACES_MODULE)}; `

/** The program cordon runs for the code of an execution. */
export interface Program {
  text: string
  /** Lines of the caller's code above the program's code (a fence's opener and any prose before it). */
  lineOffset: number
}

/**
 * The program for the code of an execution: an import of the namespaces module, on the code's
 * first line, then the code. Cordon normalizes the rest as it does any program, and an import does
 * not count as a statement of it: an async arrow function (what `createCodeTool` passes) is
 * called, a lone function declaration too, a bare expression or a last expression statement is
 * the value, `export default` works, and TypeScript is stripped.
 *
 * A Markdown fence is taken off here (the first fenced block, when the text has one), because
 * cordon would otherwise find it after the import and run the block without the import.
 */
export function programText(code: string): Program {
  const { body, lineOffset } = unfenced(code)
  return { text: IMPORT + body, lineOffset }
}

/** A 1-based position in a program as the position in the caller's code. */
export function codePosition(program: Program, line: number, column: number | undefined): { line: number; column?: number } {
  const user = { line: line + program.lineOffset }
  if (column === undefined) return user
  return { ...user, column: line === 1 ? Math.max(1, column - IMPORT.length) : column }
}

function unfenced(code: string): { body: string; lineOffset: number } {
  if (!code.includes('```')) return { body: code, lineOffset: 0 }
  const lines = code.split(/\r\n?|\n/)
  const opener = lines.findIndex((line) => FENCE_OPENER.test(line))
  if (opener < 0) return { body: code, lineOffset: 0 }
  const closer = lines.findIndex((line, index) => index > opener && FENCE_CLOSER.test(line))
  const body = lines.slice(opener + 1, closer < 0 ? undefined : closer)
  // A lone fence line with nothing after it closes a block whose opener the model forgot.
  if (closer < 0 && body.every((line) => line.trim() === '')) return { body: lines.slice(0, opener).join('\n'), lineOffset: 0 }
  return { body: body.join('\n'), lineOffset: opener + 1 }
}
