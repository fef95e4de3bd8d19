/**
 * The value of a program whose last statement is an `if`, `try`, block, loop, `switch` or
 * labeled statement: what `eval` and REPLs give, the value of the last expression statement
 * that ran inside it (`if (ok) 'yes'; else 'no'` is `'yes'` or `'no'`; a loop's is its last
 * iteration's). Each expression statement in it becomes an assignment to a binding of the
 * wrapper's, which the wrapper returns after the statement. Not counted, as in `eval`: a
 * `finally` block (`try { 1 } finally { 2 }` is 1) and the bodies of nested functions and classes.
 *
 * It differs from `eval` only where a statement with no expression ran last, e.g.
 * `{ 'a'; if (false) {} }`: `eval` gives undefined, this gives 'a'.
 */
import type { Node, Statement } from 'acorn'
import type { TopLevel } from './parse.js'
import type { Edit } from './positions.js'
import { insertAt } from './splice.js'

const COMPLETION_BINDING = '__cordon_completion__'

const WITH_COMPLETION = new Set([
  'IfStatement',
  'TryStatement',
  'BlockStatement',
  'ForStatement',
  'ForInStatement',
  'ForOfStatement',
  'WhileStatement',
  'DoWhileStatement',
  'SwitchStatement',
  'LabeledStatement',
])

/** Whether the program's value is this statement's completion value (see above). */
export function hasCompletionValue(statement: TopLevel): boolean {
  return WITH_COMPLETION.has(statement.type)
}

/** The statements whose expression statements count, under `node` (a loop, not recursion: nesting is the guest's). */
function countedStatements(root: Statement): Statement[] {
  const found: Statement[] = []
  const pending: (Node | null | undefined)[] = [root]
  while (pending.length > 0) {
    const node = pending.pop() as Statement | null | undefined
    if (node === null || node === undefined) continue
    switch (node.type) {
      case 'ExpressionStatement':
        found.push(node)
        break
      case 'BlockStatement':
        pending.push(...node.body)
        break
      case 'IfStatement':
        pending.push(node.consequent, node.alternate)
        break
      case 'TryStatement':
        pending.push(node.block, node.handler?.body)
        break
      case 'ForStatement':
      case 'ForInStatement':
      case 'ForOfStatement':
      case 'WhileStatement':
      case 'DoWhileStatement':
      case 'LabeledStatement':
        pending.push(node.body)
        break
      case 'SwitchStatement':
        for (const branch of node.cases) pending.push(...branch.consequent)
        break
    }
  }
  return found
}

/**
 * Edits that make the wrapper return `last`'s completion value: a binding declared before it,
 * each counted expression statement assigned to it, and a return after it (a `return` inside
 * still returns first).
 */
export function captureCompletion(wrapped: string, last: Statement, edits: Edit[]): void {
  insertAt(last.start, `let ${COMPLETION_BINDING};`, edits)
  for (const statement of countedStatements(last)) {
    // Closed before the statement's own semicolon, as the last-expression rewrite does.
    const end = wrapped.charCodeAt(statement.end - 1) === 59 /* ; */ ? statement.end - 1 : statement.end
    insertAt(statement.start, `${COMPLETION_BINDING} = (`, edits)
    insertAt(end, ')', edits)
  }
  insertAt(last.end, `;return ${COMPLETION_BINDING};`, edits)
}
