/**
 * One module's ESM source → the body of a function `(exports, require)` that every engine can
 * run as part of a script. sucrase's `imports` transform does the rewriting (it keeps every line
 * where it was, so a module's line L is line L of its function body); acorn parses the source
 * first, for clear syntax errors and the module's static imports.
 *
 * What does not carry over from real ES modules: top-level `await` (a module evaluates
 * synchronously, when first imported) and `import.meta`. Cycles behave as in CommonJS with
 * sucrase's live reads: an imported binding can be read once its module has set it; exported
 * function declarations are set before the module's body runs, as in ESM.
 */
import type { Options, Program } from 'acorn'
import { LinearParser } from '../normalize/acorn-parser.js'
import { lineColumn, toFailure } from '../normalize/parse.js'
import { loadSucrase } from '../normalize/sucrase-loader.js'
import { stripTypes } from '../normalize/strip-types.js'
import { MODULE_PARAMS } from './registry-source.js'

export interface CompiledModule {
  /** Function body: a first line of setup (strict mode, hoisted exports), then the module's lines. */
  body: string
  /** Static imports and re-exports, with their 1-based line in the module. */
  imports: { specifier: string; line: number }[]
}

export type CompileResult = { ok: true; module: CompiledModule } | { ok: false; message: string; line: number; column: number }

const MODULE_OPTIONS: Options = { ecmaVersion: 'latest', sourceType: 'module' }
const SCRIPT_OPTIONS: Options = { ecmaVersion: 'latest', sourceType: 'script' }
const TYPESCRIPT_NAME = /\.[mc]?ts$/

export function isTypeScriptModule(name: string): boolean {
  return TYPESCRIPT_NAME.test(name)
}

export async function compileModule(name: string, source: string): Promise<CompileResult> {
  let code = source
  if (isTypeScriptModule(name)) {
    const stripped = await stripTypes(source)
    if (!stripped.ok) return failure(source, stripped.error.offset, stripped.error.message)
    code = stripped.code
  }
  let ast: Program
  try {
    ast = LinearParser.parse(code, MODULE_OPTIONS)
  } catch (error) {
    const f = toFailure(error)
    return failure(code, f.offset, f.message)
  }
  if (hasTopLevelAwait(code, ast)) return { ok: false, message: 'top-level await is not supported in modules', line: 1, column: 1 }
  const { imports, hoisted } = readModule(code, ast)
  const sucrase = await loadSucrase()
  let transformed: string
  try {
    transformed = sucrase.transform(code, { transforms: ['imports'], disableESTransforms: true, keepUnusedImports: true }).code
  } catch (error) {
    const f = toFailure(error)
    return failure(code, f.offset, f.message)
  }
  const setup = '"use strict";' + hoisted.map((h) => 'exports.' + h.exported + ' = ' + h.local + ';').join('')
  const body = setup + '\n' + transformed
  // The transform's output must be one function body: nothing in it may close the wrapper.
  const wrapped = 'function ' + MODULE_PARAMS + ' {' + body + '\n}'
  try {
    const check = LinearParser.parse('(' + wrapped + ')', SCRIPT_OPTIONS)
    const only = check.body.length === 1 ? check.body[0] : undefined
    if (only?.type !== 'ExpressionStatement' || only.expression.type !== 'FunctionExpression' || only.end !== wrapped.length + 2) {
      return { ok: false, message: 'the module does not form one function body', line: 1, column: 1 }
    }
  } catch (error) {
    const f = toFailure(error)
    const pos = lineColumn(wrapped, f.offset)
    return { ok: false, message: f.message, line: Math.max(1, pos.line - 1), column: pos.column }
  }
  return { ok: true, module: { body, imports } }
}

function failure(text: string, offset: number, message: string): CompileResult {
  const pos = lineColumn(text, offset)
  return { ok: false, message, line: pos.line, column: pos.column }
}

/** Static import specifiers, and exported function declarations (set before the body runs). */
function readModule(code: string, ast: Program) {
  const imports: CompiledModule['imports'] = []
  const hoisted: { exported: string; local: string }[] = []
  for (const s of ast.body) {
    if (s.type === 'ImportDeclaration' || s.type === 'ExportAllDeclaration' || (s.type === 'ExportNamedDeclaration' && s.source)) {
      imports.push({ specifier: String(s.source!.value), line: lineColumn(code, s.start).line })
    }
    if (s.type === 'ExportNamedDeclaration' && s.declaration?.type === 'FunctionDeclaration') {
      const local = s.declaration.id.name
      hoisted.push({ exported: local, local })
    } else if (s.type === 'ExportDefaultDeclaration' && s.declaration.type === 'FunctionDeclaration' && s.declaration.id) {
      hoisted.push({ exported: 'default', local: s.declaration.id.name })
    }
  }
  return { imports, hoisted }
}

/** Whether `await` appears at the module's top level (outside any function). */
function hasTopLevelAwait(code: string, ast: Program): boolean {
  if (!code.includes('await')) return false
  const stack: unknown[] = [...ast.body]
  while (stack.length > 0) {
    const node = stack.pop() as { type?: string } | null
    if (typeof node !== 'object' || node === null) continue
    if (Array.isArray(node)) {
      stack.push(...(node as unknown[]))
      continue
    }
    const type = node.type
    if (type === 'AwaitExpression' || (type === 'ForOfStatement' && (node as { await?: boolean }).await)) return true
    if (type === 'FunctionDeclaration' || type === 'FunctionExpression' || type === 'ArrowFunctionExpression') continue
    for (const value of Object.values(node)) if (typeof value === 'object' && value !== null) stack.push(value)
  }
  return false
}
