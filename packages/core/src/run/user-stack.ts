/**
 * The `stack` a host reads: the program's own frames, at lines and columns of the code as the
 * user wrote it, under a `Name: message` line on every engine. cordon's guest runtime is no part
 * of the user's program, so its frames go; so do the wrapper's (the first and last line of the
 * script), which the user never wrote. Frames of built-ins (`at Array.map (<anonymous>)`) and of
 * modules (already renamed after the module) stay as they are.
 */
import { GUEST_FILENAME } from '../guest/runtime-source.js'
import { toUserPosition } from '../normalize/positions.js'
import type { NormalizedProgram } from '../normalize/types.js'

/**
 * How backends name the files of cordon's own guest code: the runtime (`cordon-runtime.js`,
 * `cordon-runtime`) and the engine guards evaluated before it (`cordon-buffer-guard`, …).
 */
const RUNTIME_FRAME = /\bcordon-(?:runtime|[\w-]*guard)\b/

const FRAME_LINE = /^\s+at /

/** A position in the program's script, `guest.js:line:column` (the column may be absent). */
export const PROGRAM_POSITION = new RegExp(GUEST_FILENAME.replace('.', '\\.') + ':(\\d+)(?::(\\d+))?')

/** QuickJS lists every frame of a stack overflow; V8 keeps 10. Enough to read, bounded in size. */
const MAX_FRAMES = 100

export function userStack(stack: string, name: string | undefined, message: string, program: NormalizedProgram): string {
  const lines = stack.split('\n')
  const firstFrame = lines.findIndex((line) => FRAME_LINE.test(line))
  if (firstFrame === -1) return stack
  // V8 starts with `Name: message`; QuickJS with the frames alone.
  const header = firstFrame === 0 ? [name ? `${name}: ${message}` : message] : lines.slice(0, firstFrame)
  const frames: string[] = []
  for (const line of lines.slice(firstFrame)) {
    if (line.trim() === '' || RUNTIME_FRAME.test(line)) continue
    const match = PROGRAM_POSITION.exec(line)
    if (match === null) {
      frames.push(line)
      continue
    }
    const column = match[2] === undefined ? undefined : Number(match[2])
    const position = toUserPosition(program, Number(match[1]), column)
    if (position === undefined) continue
    const where = GUEST_FILENAME + ':' + position.line + (position.column === undefined ? '' : ':' + position.column)
    frames.push(line.slice(0, match.index) + where + line.slice(match.index + match[0].length))
  }
  return [...header, ...frames.slice(0, MAX_FRAMES)].join('\n')
}
