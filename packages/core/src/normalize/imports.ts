/**
 * `import` in the program, when the host supplied modules (the `modules` run option).
 *
 * The program stays a script: each top-level `import … from 'm'` becomes `const` bindings taken
 * from the guest's module registry (see modules/registry-source.ts), in place and on the same
 * lines, and each dynamic `import(x)` calls the registry instead of the engine's own loader. The
 * bindings are copies taken when the import statement runs, not live bindings: the program is
 * never part of an import cycle, and every module it imports has finished evaluating by then.
 */
import type { ImportDeclaration, Node, Program } from 'acorn'
import type { Edit } from './positions.js'
import { replaceKeepingLines } from './splice.js'

/** The registry's `require`: evaluates a module once and returns its namespace. */
export const REQUIRE_BINDING = '__cordon_require__'
/**
 * What a dynamic `import(` becomes. It has the length of `import` (ɪ is U+026A, a letter), so the
 * columns of the rest of the line do not move, and no program would pick that name by accident.
 */
export const DYNAMIC_IMPORT_BINDING = '\u026amport'

/** A static import of the program: its specifier and its offset in the wrapped code. */
export interface StaticImport {
  specifier: string
  offset: number
}

/** Replaces one import declaration by the bindings it makes. */
export function rewriteImport(wrapped: string, s: ImportDeclaration, edits: Edit[]): StaticImport {
  const specifier = String(s.source.value)
  const load = REQUIRE_BINDING + '(' + JSON.stringify(specifier) + ')'
  let namespace: string | undefined
  const named: string[] = []
  for (const spec of s.specifiers) {
    if (spec.type === 'ImportNamespaceSpecifier') namespace = spec.local.name
    else if (spec.type === 'ImportDefaultSpecifier') named.push('default: ' + spec.local.name)
    else {
      const imported = spec.imported.type === 'Identifier' ? spec.imported.name : String(spec.imported.value)
      named.push(JSON.stringify(imported) + ': ' + spec.local.name)
    }
  }
  const pattern = '{ ' + named.join(', ') + ' }'
  let text: string
  if (namespace !== undefined)
    text = 'const ' + namespace + ' = ' + load + (named.length > 0 ? ', ' + pattern + ' = ' + namespace : '') + ';'
  else if (named.length > 0) text = 'const ' + pattern + ' = ' + load + ';'
  else text = load + ';'
  replaceKeepingLines(wrapped, s.start, s.end, text, edits)
  return { specifier, offset: s.start }
}

/** Offsets of the `import` keyword of every dynamic `import(…)` in a parsed program. */
export function dynamicImportOffsets(ast: Program): number[] {
  const offsets: number[] = []
  // An explicit stack: the tree can be as deep as the parser allowed.
  const stack: unknown[] = [ast]
  while (stack.length > 0) {
    const node = stack.pop()
    if (typeof node !== 'object' || node === null) continue
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item)
      continue
    }
    if ((node as Node).type === 'ImportExpression') offsets.push((node as Node).start)
    for (const key of Object.keys(node)) {
      const value = (node as Record<string, unknown>)[key]
      if (typeof value === 'object' && value !== null) stack.push(value)
    }
  }
  return offsets
}

/** `script` with each dynamic import at `offsets` calling the registry. */
export function renameDynamicImports(script: string, offsets: readonly number[]): string {
  let out = script
  for (const offset of offsets) out = out.slice(0, offset) + DYNAMIC_IMPORT_BINDING + out.slice(offset + DYNAMIC_IMPORT_BINDING.length)
  return out
}
