/**
 * Rewrites the top-level statements of the guest code so that the wrapper function's result is
 * the program's value. Works on acorn's top-level statements only (no tree walk) and returns
 * string edits by node offsets; no line terminator is added or removed.
 *
 * Shapes:
 * - `export default <x>` anywhere: the module's default export is the value. Like a module, the
 *   whole program runs first (so helpers declared further down are initialised), then the value
 *   is returned from the last line of the wrapper; a function/arrow default is called and awaited.
 * - a lone function declaration (`async function main() {…}`, possibly `export`ed): called with
 *   no arguments and awaited.
 * - last top-level statement is an `if`, `try`, block, loop, `switch` or label: its completion
 *   value, as `eval` gives it, is returned (completion.ts).
 * - last top-level statement is an expression statement: its value is returned. If that
 *   expression is a (non-generator) function or arrow, it is called and awaited instead — a
 *   function is never a useful result, and `async () => {…}` alone is the documented shape; this
 *   also covers `const x = …; async () => {…}`.
 * - other `export` forms lose the `export` keyword; `export { a, b }` is removed.
 * - `import …` is rejected, unless the host supplied modules: then it becomes bindings taken from
 *   the guest's module registry (imports.ts). `export … from` is always rejected.
 */
import type { ExportDefaultDeclaration, Expression, FunctionDeclaration, Statement } from 'acorn'
import { captureCompletion, hasCompletionValue } from './completion.js'
import type { TopLevel } from './parse.js'
import type { Edit } from './positions.js'
import { insertAt, replaceKeepingLines } from './splice.js'
import { persistDeclarations } from './persist.js'
import { rewriteImport, type StaticImport } from './imports.js'

export const IMPORT_MESSAGE = 'import statements are not available in the sandbox; use the provided tools and globals'
export const REEXPORT_MESSAGE = "'export … from' statements are not available in the sandbox; use the provided tools and globals"

/** Name of the binding that holds an anonymous default export. */
const DEFAULT_BINDING = '__cordon_default__'

export type TransformResult =
  | {
      ok: true
      edits: Edit[]
      /** The program's static imports (only when imports are allowed). */
      imports: StaticImport[]
      /**
       * False when the only edit wraps the last expression statement as `return (<expr>)` or
       * `return await (<fn>)()`: parenthesising the text of an expression that parsed in this
       * very function body cannot make it invalid, so the final re-parse can be skipped.
       */
      recheck: boolean
    }
  | { ok: false; message: string; offset: number }

/**
 * `persist` (session programs): top-level declarations are kept for the next run, and a lone
 * function declaration is therefore a definition, not a program to call. `allowImports`: the run
 * has modules, so import declarations are rewritten instead of rejected.
 */
export function transformStatements(
  wrapped: string,
  statements: TopLevel[],
  module: boolean,
  persist = false,
  allowImports = false,
): TransformResult {
  const edits: Edit[] = []
  const imports: StaticImport[] = []
  // First, so that an insertion at the same offset as a later edit comes before it.
  if (persist) persistDeclarations(statements, edits)
  let defaultExport: ExportDefaultDeclaration | undefined

  if (module) {
    for (const s of statements) {
      if (s.type === 'ImportDeclaration') {
        if (!allowImports) return { ok: false, message: IMPORT_MESSAGE, offset: s.start }
        imports.push(rewriteImport(wrapped, s, edits))
      }
      if (s.type === 'ExportAllDeclaration' || (s.type === 'ExportNamedDeclaration' && s.source)) {
        return { ok: false, message: REEXPORT_MESSAGE, offset: s.start }
      }
    }
    for (const s of statements) {
      if (s.type === 'ExportNamedDeclaration') {
        if (s.declaration) {
          // `export const x = 1` → `const x = 1`
          replaceKeepingLines(wrapped, s.start, s.declaration.start, '', edits)
        } else {
          // `export { a, b as c }` names things for other modules: nothing to run.
          replaceKeepingLines(wrapped, s.start, s.end, '', edits)
        }
      } else if (s.type === 'ExportDefaultDeclaration') {
        defaultExport = s
      }
    }
  }

  if (defaultExport !== undefined) {
    exportDefault(wrapped, defaultExport, edits)
    return { ok: true, edits, imports, recheck: true }
  }

  // The statements that are neither directives ('use strict' must stay the body's first
  // statement) nor imports: a lone function declaration after imports is still the program.
  let firstReal = 0
  while (firstReal < statements.length && isDirective(statements[firstReal]!)) firstReal++
  const last = statements[statements.length - 1]
  if (last === undefined) return { ok: true, edits, imports, recheck: edits.length > 0 }
  const real = statements.length - firstReal - imports.length

  if (real === 1 && !persist) {
    const fn = last.type === 'ExportNamedDeclaration' ? last.declaration : last
    if (fn?.type === 'FunctionDeclaration' && !fn.generator) {
      // `async function main() {…}` → `return await (async function main() {…})()`
      insertAt(fn.start, 'return await (', edits)
      insertAt(fn.end, ')()', edits)
      // A declaration's text as an expression: `function await() {}` would not survive.
      return { ok: true, edits, imports, recheck: true }
    }
  }

  const recheck = edits.length > 0
  // Trailing `;`s count for nothing, as in eval: `if (ok) { 1 };` is 1.
  let valued = statements.length - 1
  while (valued > firstReal && statements[valued]!.type === 'EmptyStatement') valued--
  const lastValued = statements[valued]!
  if (hasCompletionValue(lastValued)) {
    captureCompletion(wrapped, lastValued as Statement, edits)
    return { ok: true, edits, imports, recheck: true }
  }
  if (last.type === 'ExpressionStatement' && last.directive !== 'use strict') {
    // Insert before the statement (not the expression: `(a, b)` starts at its parenthesis) and
    // close before its own semicolon. A trailing comment stays inside the parentheses, harmlessly.
    const end = wrapped.charCodeAt(last.end - 1) === 59 /* ; */ ? last.end - 1 : last.end
    if (isCallableFunction(last.expression)) {
      insertAt(last.start, 'return await (', edits)
      insertAt(end, ')()', edits)
    } else {
      insertAt(last.start, 'return (', edits)
      insertAt(end, ')', edits)
    }
  }
  return { ok: true, edits, imports, recheck }
}

function isDirective(s: TopLevel): boolean {
  return s.type === 'ExpressionStatement' && typeof s.directive === 'string'
}

function isCallableFunction(e: Expression | { type: string }): boolean {
  return e.type === 'ArrowFunctionExpression' || (e.type === 'FunctionExpression' && !(e as { generator: boolean }).generator)
}

function exportDefault(wrapped: string, s: ExportDefaultDeclaration, edits: Edit[]): void {
  const d = s.declaration
  const keywordsEnd = afterDefaultKeyword(wrapped, s.start)
  // The wrapper's last line is `})`; the epilogue goes right before it, after the whole program.
  const epilogueAt = wrapped.length - 2
  const named = (d.type === 'FunctionDeclaration' || d.type === 'ClassDeclaration') && d.id ? d.id.name : undefined
  if (named !== undefined) {
    // `export default async function main() {}` → the declaration, then `return await main()`.
    replaceKeepingLines(wrapped, s.start, keywordsEnd, '', edits)
  } else {
    // `export default <expr>` / anonymous function or class → `const __cordon_default__ = …`
    replaceKeepingLines(wrapped, s.start, keywordsEnd, `const ${DEFAULT_BINDING} =`, edits)
    if (d.type === 'FunctionDeclaration' || d.type === 'ClassDeclaration') insertAt(d.end, ';', edits)
  }
  const binding = named ?? DEFAULT_BINDING
  const callable =
    d.type === 'FunctionDeclaration' ? !(d as FunctionDeclaration).generator : d.type !== 'ClassDeclaration' && isCallableFunction(d)
  insertAt(epilogueAt, callable ? `;return await ${binding}();` : `;return ${binding};`, edits)
}

/** Offset just after the `default` of `export default`, skipping blanks and comments between. */
function afterDefaultKeyword(src: string, exportStart: number): number {
  let i = skipTrivia(src, exportStart + 'export'.length)
  if (src.startsWith('default', i)) i += 'default'.length
  return i
}

function skipTrivia(src: string, i: number): number {
  for (;;) {
    const c = src.charCodeAt(i)
    if (c === 47 /* / */ && src.charCodeAt(i + 1) === 42 /* * */) {
      const close = src.indexOf('*/', i + 2)
      i = close < 0 ? src.length : close + 2
    } else if (c === 47 && src.charCodeAt(i + 1) === 47) {
      while (i < src.length && !isLineBreak(src.charCodeAt(i))) i++
    } else if (c === 32 || c === 9 || c === 11 || c === 12 || c === 0xa0 || c === 0xfeff || isLineBreak(c)) {
      i++
    } else if (c > 0x7f && /\s/.test(src[i]!)) {
      i++
    } else {
      return i
    }
  }
}

function isLineBreak(c: number): boolean {
  return c === 10 || c === 13 || c === 0x2028 || c === 0x2029
}
