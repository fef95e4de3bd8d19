/**
 * Code normalization: turns what a model wrote (fenced or not, JavaScript or TypeScript, a bare
 * expression, statements, an async arrow, an `export default`…) into one JavaScript expression,
 * `(async function () {\n<body>\n})`, whose call runs the program and resolves to its value.
 *
 * Steps: strip a Markdown fence (fences.ts) → drop a shebang → parse (parse.ts), falling back to
 * TypeScript stripping (strip-types.ts) → rewrite the top level (transform.ts, splice.ts) → check
 * that the result parses. Lines are never added or removed, so `lineDelta` maps every line of
 * `script` to the user's code (positions.ts).
 *
 * TypeScript detection: a ```ts / ```typescript / ```tsx fence forces TypeScript. Otherwise the
 * code is parsed as JavaScript first (fast path, and the usual case); only when that fails are
 * types stripped with sucrase and the result parsed again; if that parses the program is
 * TypeScript, otherwise the ORIGINAL JavaScript error is reported (it is about the code the user
 * wrote, not about what sucrase made of it). Known ambiguity: some TypeScript is also valid
 * JavaScript with another meaning — `f<T>(x)` is a generic call in TypeScript but `(f < T) > x`
 * in JavaScript, and JavaScript wins. A ts fence removes the ambiguity.
 */
import { findFencedBlock, isTypeScriptLang } from './fences.js'
import { analyze, lineColumn, verify, type Analysis, type ParseFailure } from './parse.js'
import { lineStartsOf, rememberEdits, toUserPosition } from './positions.js'
import { applyEdits } from './splice.js'
import { parsesAsJsx, stripTypes } from './strip-types.js'
import { transformStatements } from './transform.js'
import type { NormalizedProgram, NormalizeResult, NormalizeSyntaxError } from './types.js'

export type { NormalizedProgram, NormalizeResult, NormalizeSyntaxError } from './types.js'
export { toUserPosition } from './positions.js'

export const JSX_MESSAGE = 'JSX is not supported in the sandbox'

export async function normalizeCode(code: string): Promise<NormalizeResult> {
  if (typeof code !== 'string') return fail('Code must be a string', 1, 1)

  // 1. Markdown fence. Code that does not start with a fence but contains one (prose first, or a
  //    fence-looking line inside a block comment) is only unwrapped if it is not valid code as is.
  let body = code
  let lineOffset = 0
  let lang = ''
  const block = findFencedBlock(code)
  if (block !== undefined && (block.atStart || !analyze(code).ok)) {
    body = block.body
    lineOffset = block.lineOffset
    lang = block.lang
  }

  // 2. A shebang line is dropped; the line itself stays (empty) so lines keep their numbers.
  if (body.startsWith('#!')) body = body.slice(lineEnd(body))

  // 3. Parse, as JavaScript or TypeScript.
  const errorAt = (text: string, failure: ParseFailure, message = failure.message): NormalizeResult => {
    const pos = lineColumn(text, failure.offset)
    return fail(message, pos.line + lineOffset, pos.column)
  }
  let analysis: Analysis
  let language: 'js' | 'ts' = 'js'
  let source = body
  if (isTypeScriptLang(lang)) {
    language = 'ts'
    const stripped = await stripTypes(body)
    if (!stripped.ok) {
      if (!stripped.error.tooDeep && (await stripTypes(body, true)).ok) return errorAt(body, stripped.error, JSX_MESSAGE)
      return errorAt(body, stripped.error)
    }
    source = stripped.code
    analysis = analyze(source)
  } else {
    analysis = analyze(body)
    if (!analysis.ok && !analysis.error.tooDeep) {
      const jsError = analysis.error
      if (body.charCodeAt(jsError.offset) === 60 /* < */ && (await parsesAsJsx(body))) {
        return errorAt(body, jsError, JSX_MESSAGE)
      }
      const stripped = await stripTypes(body)
      if (stripped.ok) {
        const tsAnalysis = analyze(stripped.code)
        if (tsAnalysis.ok) {
          analysis = tsAnalysis
          source = stripped.code
          language = 'ts'
        }
      } else if (!stripped.error.tooDeep && (await stripTypes(body, true)).ok) {
        return errorAt(body, stripped.error, JSX_MESSAGE)
      }
      if (!analysis.ok) return errorAt(body, jsError)
    }
  }
  if (!analysis.ok) return errorAt(source, analysis.error)

  // 4. Rewrite the top level so the program's value is returned.
  const { wrapped } = analysis
  const transformed = transformStatements(wrapped, analysis.statements, analysis.module)
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
  rememberEdits(program, edits)

  // 5. The result must parse as one wrapper expression (skipped when the parse in step 3 already
  //    parsed this very text in that shape).
  if (edits.length > 0 || !analysis.verified) {
    const failure = verify(program.script)
    if (failure !== undefined) return scriptErrorAt(program, failure)
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
