/**
 * Parsing with acorn: the guest code as a function body, and the final check of `script`.
 */
import { getLineInfo, type ModuleDeclaration, type Options, type Program, type Statement } from 'acorn'
import { LinearParser } from './acorn-parser.js'

const parse = (input: string, options: Options): Program => LinearParser.parse(input, options)

export const PREFIX = '(async function () {\n'
export const SUFFIX = '\n})'

export type TopLevel = Statement | ModuleDeclaration

/** A parse failure: a clean message and an offset into the text that was parsed. */
export interface ParseFailure {
  message: string
  offset: number
  /** The parser ran out of stack (absurdly deep nesting): not worth retrying as TypeScript. */
  tooDeep?: boolean
}

export type Analysis =
  | {
      ok: true
      /** PREFIX + code + SUFFIX. */
      wrapped: string
      /** The top-level statements; their offsets are offsets in `wrapped`. */
      statements: TopLevel[]
      /** Parsed as a module (the code has import/export). */
      module: boolean
      /** `wrapped` itself was parsed as the final script shape: it needs no re-check if left unedited. */
      verified: boolean
    }
  | { ok: false; error: ParseFailure }

const WRAPPED_OPTIONS: Options = { ecmaVersion: 'latest', sourceType: 'script' }
const SCRIPT_OPTIONS: Options = {
  ecmaVersion: 'latest',
  sourceType: 'script',
  allowAwaitOutsideFunction: true,
  allowReturnOutsideFunction: true,
}
const MODULE_OPTIONS: Options = {
  ecmaVersion: 'latest',
  sourceType: 'module',
  allowAwaitOutsideFunction: true,
  allowReturnOutsideFunction: true,
}

const IMPORT_EXPORT_IN_SCRIPT = "'import' and 'export' may appear only with 'sourceType: module'"
const IMPORT_EXPORT_NESTED = "'import' and 'export' may only appear at the top level"
const POSITION_SUFFIX = / \(\d+:\d+\)$/

/** Acorn (and sucrase) append " (line:column)" to their messages; the position is reported apart. */
export function cleanMessage(message: string): string {
  return message.replace(POSITION_SUFFIX, '')
}

export function toFailure(err: unknown): ParseFailure {
  if (err instanceof RangeError) {
    return { message: 'Not enough stack space to parse input', offset: 0, tooDeep: true }
  }
  const e = err as { message?: unknown; pos?: unknown }
  const message = typeof e?.message === 'string' ? cleanMessage(e.message) : String(err)
  const offset = typeof e?.pos === 'number' ? e.pos : 0
  return { message, offset, tooDeep: message === 'Not enough stack space to parse input' || undefined }
}

/**
 * If `wrapped` is exactly one parenthesised function expression spanning the whole text, its
 * function body's statements; otherwise undefined (the body closed the wrapper early, etc.).
 */
export function wrapperBody(ast: Program, wrapped: string): TopLevel[] | undefined {
  if (ast.body.length !== 1) return undefined
  const stmt = ast.body[0]!
  if (stmt.type !== 'ExpressionStatement' || stmt.end !== wrapped.length) return undefined
  const fn = stmt.expression
  if (fn.type !== 'FunctionExpression' || fn.start !== 1 || fn.end !== wrapped.length - 1) return undefined
  return fn.body.body
}

/**
 * Parses guest code (no fences, no shebang) as the body of an async function.
 *
 * Fast path: parse the final shape `(async function () {\n<code>\n})` directly, in script mode —
 * if nothing needs rewriting, that single parse is also the final check. When that fails, the
 * code is parsed on its own as a script (top-level await/return allowed) for an error in the
 * user's coordinates, and as a module only when the script parse rejects import/export (module
 * code is strict: it is only used to find the import/export nodes; the output keeps script
 * semantics).
 */
export function analyze(code: string): Analysis {
  const wrapped = PREFIX + code + SUFFIX
  let tryModuleFirst = false
  try {
    const statements = wrapperBody(parse(wrapped, WRAPPED_OPTIONS), wrapped)
    if (statements !== undefined) return { ok: true, wrapped, statements, module: false, verified: true }
  } catch (err) {
    tryModuleFirst = (err as Error)?.message?.startsWith(IMPORT_EXPORT_NESTED) === true
  }
  let failure: ParseFailure | undefined
  if (!tryModuleFirst) {
    try {
      return { ok: true, wrapped, statements: shift(parse(code, SCRIPT_OPTIONS).body), module: false, verified: false }
    } catch (err) {
      failure = toFailure(err)
      if (!failure.message.startsWith(IMPORT_EXPORT_IN_SCRIPT)) return { ok: false, error: failure }
    }
  }
  try {
    return { ok: true, wrapped, statements: shift(parse(code, MODULE_OPTIONS).body), module: true, verified: false }
  } catch (err) {
    return { ok: false, error: toFailure(err) }
  }
}

/** Moves statements parsed from the bare code to `wrapped` coordinates (top-level offsets only). */
function shift(statements: TopLevel[]): TopLevel[] {
  // Only the offsets the transform reads are shifted, on the nodes it reads them from.
  const d = PREFIX.length
  for (const s of statements) {
    s.start += d
    s.end += d
    if (s.type === 'ExpressionStatement') {
      s.expression.start += d
      s.expression.end += d
    } else if (s.type === 'ExportDefaultDeclaration' || s.type === 'ExportNamedDeclaration') {
      if (s.declaration) {
        s.declaration.start += d
        s.declaration.end += d
      }
    }
  }
  return statements
}

/**
 * True when `code` is valid JavaScript as it is AND `offset` lies inside one of its comments.
 * Used to tell a fence-looking line inside a block comment from a real fence: note that prose
 * followed by a fence is often valid JavaScript too (`Sure:` is a label, ```` ``` ```` lines are
 * template literals), so "it parses" alone proves nothing.
 */
export function isInsideComment(code: string, offset: number): boolean {
  // A fence line can only be inside a block comment (line comments end before the next line).
  if (code.lastIndexOf('/*', offset) < 0) return false
  let inside = false
  const onComment = (_block: boolean, _text: string, start: number, end: number): void => {
    if (start <= offset && offset < end) inside = true
  }
  for (const options of [SCRIPT_OPTIONS, MODULE_OPTIONS]) {
    try {
      parse(code, { ...options, onComment })
      return inside
    } catch (err) {
      if (!String((err as Error)?.message).startsWith(IMPORT_EXPORT_IN_SCRIPT)) return false
      inside = false
    }
  }
  return false
}

/** Parses the finished `script`; undefined when it is one well-formed wrapper expression. */
export function verify(script: string): ParseFailure | undefined {
  try {
    if (wrapperBody(parse(script, WRAPPED_OPTIONS), script) !== undefined) return undefined
    return { message: 'The code does not form a single function body', offset: 0 }
  } catch (err) {
    return toFailure(err)
  }
}

/** The AST of a finished `script` (known to parse), or undefined if it does not. */
export function parseScript(script: string): Program | undefined {
  try {
    return parse(script, WRAPPED_OPTIONS)
  } catch {
    return undefined
  }
}

/** 1-based line and column of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const pos = getLineInfo(text, Math.max(0, Math.min(offset, text.length)))
  return { line: pos.line, column: pos.column + 1 }
}
