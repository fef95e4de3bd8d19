/**
 * Session programs keep their top-level declarations for the next run: after each top-level
 * `var`/`let`/`const`/`function`/`class` declaration, each name it binds becomes an accessor
 * of the global object over the declaration's own binding, where a later run of the same session
 * finds it. An accessor rather than a copy, so that a later change of the binding (`total += x`
 * further down the program, a later run's `total = 0`) is what every later run sees; assigning a
 * `const` through it throws as assigning the const does. Only the top level is rewritten; the
 * insertion stays on the declaration's last line.
 */
import type { Pattern } from 'acorn'
import type { TopLevel } from './parse.js'
import type { Edit } from './positions.js'
import { insertAt } from './splice.js'

export function persistDeclarations(statements: readonly TopLevel[], edits: Edit[]): void {
  for (const statement of statements) {
    const declaration = statement.type === 'ExportNamedDeclaration' ? statement.declaration : statement
    if (declaration === null || declaration === undefined) continue
    const names: string[] = []
    if (declaration.type === 'VariableDeclaration') {
      for (const declarator of declaration.declarations) boundNames(declarator.id, names)
    } else if ((declaration.type === 'FunctionDeclaration' || declaration.type === 'ClassDeclaration') && declaration.id) {
      names.push(declaration.id.name)
    }
    if (names.length === 0) continue
    insertAt(statement.end, `;${names.map(liveGlobal).join(';')};`, edits)
  }
}

function liveGlobal(name: string): string {
  return `Object.defineProperty(globalThis,${JSON.stringify(name)},{get(){return ${name}},set(v){${name}=v},configurable:true,enumerable:true})`
}

function boundNames(pattern: Pattern, out: string[]): void {
  switch (pattern.type) {
    case 'Identifier':
      out.push(pattern.name)
      break
    case 'ObjectPattern':
      for (const property of pattern.properties) boundNames(property.type === 'RestElement' ? property.argument : property.value, out)
      break
    case 'ArrayPattern':
      for (const element of pattern.elements) if (element !== null) boundNames(element, out)
      break
    case 'RestElement':
      boundNames(pattern.argument, out)
      break
    case 'AssignmentPattern':
      boundNames(pattern.left, out)
      break
    default:
      // MemberExpression only appears in assignment targets, never in declarations.
      break
  }
}
