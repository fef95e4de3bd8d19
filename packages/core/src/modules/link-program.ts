/**
 * The script a run with modules hands to its backend: the program's own function, returned by
 * an outer function that also holds the module registry and one factory per module. The
 * program's lines keep their numbers (the outer function opens on line 1, a wrapper line);
 * the modules follow, each on lines of its own, and `spans` says which lines are whose, so
 * stack frames in a module can name it. Modules live outside the program's function: they see
 * globals, never the program's variables.
 */
import { GUEST_FILENAME } from '../guest/runtime-source.js'
import type { NormalizedProgram } from '../normalize/index.js'
import { lineStartsOf } from '../normalize/positions.js'
import { syntaxMessage, type CompiledModules } from './module-graph.js'
import { MODULE_PARAMS, REGISTRY_SOURCE } from './registry-source.js'

export interface ModuleSpan {
  name: string
  /** Line of the script that holds the module's line 1. */
  firstLine: number
  lastLine: number
}

export interface LinkedProgram {
  script: string
  spans: ModuleSpan[]
}

export function linkProgram(program: NormalizedProgram, modules: CompiledModules): LinkedProgram {
  let script =
    '(function () { return ' + program.script + ';\n' + REGISTRY_SOURCE + '\nfunction __cordon_modules__() {\nreturn { __proto__: null,\n'
  let line = lineStartsOf(script).length
  const spans: ModuleSpan[] = []
  for (const [name, result] of modules) {
    // A module that does not compile fails whoever imports it, with the same SyntaxError.
    const body = result.ok ? result.module.body : 'throw new SyntaxError(' + oneLine(JSON.stringify(syntaxMessage(name, result))) + ');'
    const entry = '[' + JSON.stringify(name) + ']: function ' + MODULE_PARAMS + ' {' + body + '\n},\n'
    const lines = lineStartsOf(entry).length - 1
    // The entry's first line is the factory's setup line; the module's line 1 comes next.
    spans.push({ name, firstLine: line + 1, lastLine: line + lines - 2 })
    script += entry
    line += lines
  }
  script += '};\n}\n})()'
  return { script, spans }
}

/** JSON leaves U+2028 and U+2029 as they are, and both end a line of the script: escape them. */
function oneLine(json: string): string {
  return json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')
}

const FRAME = new RegExp(GUEST_FILENAME.replace('.', '\\.') + ':(\\d+):(\\d+)', 'g')

/** `stack` with each frame that points into a module naming the module and its own line. */
export function renameModuleFrames(stack: string, spans: readonly ModuleSpan[]): string {
  return stack.replace(FRAME, (frame, lineText: string, column: string) => {
    const line = Number(lineText)
    const span = spans.find((s) => line >= s.firstLine && line <= s.lastLine)
    return span === undefined ? frame : span.name + ':' + (line - span.firstLine + 1) + ':' + column
  })
}
