/**
 * Code normalization: turns what a model wrote (fenced or not, JavaScript or TypeScript, a bare
 * expression, statements, an async arrow, an `export default`…) into one JavaScript expression,
 * `(async function () {\n<body>\n})`, whose call runs the program and resolves to its value.
 *
 * Steps: strip a Markdown fence (fences.ts) → drop a shebang → parse as JavaScript, or as
 * TypeScript through sucrase (language.ts, parse.ts, strip-types.ts; acorn with a patched scope
 * tracker, acorn-parser.ts) → rewrite the top level (transform.ts, splice.ts) → check that the
 * result parses. Lines are never added or removed, so `lineDelta` maps every line of `script` to
 * the user's code (positions.ts).
 */
import { NormalizeCache } from './cache.js'
import { findFencedBlock, isTypeScriptLang } from './fences.js'
import { parseGuestCode } from './language.js'
import { isInsideComment, lineColumn, verify, type ParseFailure } from './parse.js'
import { lineStartsOf, rememberProgram, toUserPosition } from './positions.js'
import { applyEdits } from './splice.js'
import { transformStatements } from './transform.js'
import type { NormalizedProgram, NormalizeResult, NormalizeSyntaxError } from './types.js'
import { dynamicImportOffsets, renameDynamicImports } from './imports.js'
import { parseScript } from './parse.js'

export type { NormalizedProgram, NormalizeResult, NormalizeSyntaxError } from './types.js'
export { bodyOf, toUserPosition } from './positions.js'

export interface NormalizeOptions {
  /** Session programs: top-level declarations persist as globals for the next run (persist.ts). */
  persistTopLevel?: boolean
  /** The run has modules: `import` declarations and `import()` use the guest's module registry (imports.ts). */
  imports?: boolean
}

const cache = new NormalizeCache()

export async function normalizeCode(code: string, options: NormalizeOptions = {}): Promise<NormalizeResult> {
  if (typeof code !== 'string') return fail('Code must be a string', 1, 1)
  const persist = options.persistTopLevel === true
  const imports = options.imports === true
  const variant = (persist ? 'p' : 'r') + (imports ? 'i' : '')
  const cached = cache.get(code, variant)
  if (cached !== undefined) return cached
  const result = await normalizeUncached(code, persist, imports)
  cache.set(code, variant, result)
  return result
}

async function normalizeUncached(code: string, persistTopLevel: boolean, imports: boolean): Promise<NormalizeResult> {
  // 1. Markdown fence. When the text does not start with the fence (prose first), make sure the
  //    "fence" is not a line inside a block comment of code that is valid as it is.
  let body = code
  let lineOffset = 0
  let lang = ''
  const block = findFencedBlock(code)
  if (block !== undefined && (block.atStart || !isInsideComment(code, block.firstFenceOffset))) {
    body = block.body
    lineOffset = block.lineOffset
    lang = block.lang
  }

  // 2. A shebang line is dropped; the line itself stays (empty) so lines keep their numbers.
  if (body.startsWith('#!')) body = body.slice(lineEnd(body))

  // 3. Parse, as JavaScript or TypeScript.
  const parsed = await parseGuestCode(body, isTypeScriptLang(lang))
  if (!parsed.ok) {
    const pos = lineColumn(parsed.text, parsed.error.offset)
    return fail(parsed.error.message, pos.line + lineOffset, pos.column)
  }
  const { analysis, language } = parsed

  // 4. Rewrite the top level so the program's value is returned.
  const { wrapped } = analysis
  const transformed = transformStatements(wrapped, analysis.statements, analysis.module, persistTopLevel, imports)
  if (!transformed.ok) {
    const pos = lineColumn(wrapped, transformed.offset)
    return fail(transformed.message, pos.line - 1 + lineOffset, pos.column)
  }
  const { edits } = transformed
  const program: NormalizedProgram = {
    script: edits.length === 0 ? wrapped : applyEdits(wrapped, edits),
    lineDelta: 1 - lineOffset,
    language,
  }
  if (imports) {
    program.imports = transformed.imports.map(({ specifier, offset }) => {
      const pos = lineColumn(wrapped, offset)
      return { specifier, line: pos.line - program.lineDelta, column: pos.column }
    })
  }
  rememberProgram(program, edits, body)

  // 5. The result must parse as one wrapper expression. Skipped when step 3 already parsed this
  //    very text in that shape, or that text with the last expression merely parenthesised.
  if (!analysis.verified || transformed.recheck) {
    const failure = verify(program.script)
    if (failure !== undefined) return scriptErrorAt(program, failure)
  }
  // 6. With modules, `import(x)` calls the registry (same length: nothing moves).
  if (imports && program.script.includes('import')) {
    const ast = parseScript(program.script)
    if (ast !== undefined) program.script = renameDynamicImports(program.script, dynamicImportOffsets(ast))
  }
  return { ok: true, program }
}

function scriptErrorAt(program: NormalizedProgram, failure: ParseFailure): NormalizeResult {
  const pos = lineColumn(program.script, failure.offset)
  // A failure on a wrapper line (first or last) is reported on the nearest line of the user's code.
  const lastLine = lineStartsOf(program.script).length - 1
  const line = Math.min(Math.max(pos.line, 2), Math.max(lastLine, 2))
  const user = toUserPosition(program, line, line === pos.line ? pos.column : 1)
  return fail(failure.message, user?.line ?? 1, user?.column ?? 1)
}

function fail(message: string, line: number, column: number): NormalizeResult {
  const error: NormalizeSyntaxError = { name: 'SyntaxError', message, line, column }
  return { ok: false, error }
}

/** Offset of the first line terminator (the end of the first line). */
function lineEnd(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) return i
  }
  return text.length
}
