/**
 * JavaScript or TypeScript? Parses the guest code, stripping TypeScript when needed.
 *
 * A ```ts / ```typescript / ```tsx fence forces TypeScript. Otherwise the code is parsed as
 * JavaScript first (fast path, and the usual case); only when that fails are types stripped with
 * sucrase and the result parsed again: if that parses, the program is TypeScript. If not, the
 * JavaScript error is reported (it is about the code the user wrote), unless it is an unexpected
 * token on an earlier line than the TypeScript parse's error: then the code is TypeScript with a
 * mistake further down (the JavaScript parse stopped at its first annotation), and the mistake's
 * place is what the user needs.
 *
 * Known ambiguity: some TypeScript is also valid JavaScript with another meaning. `f<T>(x)` is a
 * generic call in TypeScript but `(f < T) > x` in JavaScript — and JavaScript wins, since it
 * parses. A ts fence removes the ambiguity.
 *
 * JSX is not supported (nothing in the sandbox could render it), but it gets a clear error:
 * - JavaScript whose parse error sits on a `<` and that sucrase accepts as JSX;
 * - TypeScript that sucrase rejects but accepts as TSX: it is stripped as TSX with the JSX kept,
 *   and acorn's error on the result points at the first JSX tag (exact line, column of the
 *   stripped code).
 */
import { analyze, type Analysis, type ParseFailure } from './parse.js'
import { parsesAsJsx, stripTypes } from './strip-types.js'
import { NEEDS_SUCRASE } from './sucrase-loader.js'

export const JSX_MESSAGE = 'JSX is not supported in the sandbox'

export type GuestParse =
  | { ok: true; analysis: Extract<Analysis, { ok: true }>; language: 'js' | 'ts' }
  /** `error.offset` is an offset into `text` (the code, or its stripped form: same lines). */
  | { ok: false; error: ParseFailure; text: string }

/**
 * With `sucraseHere` false, code that needs sucrase (TypeScript, JSX, or JavaScript that does not
 * parse) returns NEEDS_SUCRASE instead: loading sucrase is ~120 ms of synchronous work, and the
 * host's event loop does the rest of normalizing elsewhere (parse-thread/).
 */
export async function parseGuestCode(
  code: string,
  forceTypeScript: boolean,
  sucraseHere = true,
): Promise<GuestParse | typeof NEEDS_SUCRASE> {
  if (forceTypeScript && !sucraseHere) return NEEDS_SUCRASE
  if (forceTypeScript) {
    const stripped = await stripTypes(code)
    if (!stripped.ok) return (!stripped.error.tooDeep && (await jsxInTypeScript(code))) || failure(code, stripped.error)
    const analysis = analyze(stripped.code)
    return analysis.ok ? { ok: true, analysis, language: 'ts' } : failure(stripped.code, analysis.error)
  }

  const analysis = analyze(code)
  if (analysis.ok) return { ok: true, analysis, language: 'js' }
  const jsError = analysis.error
  // Nesting too deep for acorn is too deep for sucrase too.
  if (jsError.tooDeep) return failure(code, jsError)
  if (!sucraseHere) return NEEDS_SUCRASE
  if (code.charCodeAt(jsError.offset) === 60 /* < */ && (await parsesAsJsx(code))) {
    return failure(code, { ...jsError, message: JSX_MESSAGE })
  }
  const stripped = await stripTypes(code)
  if (stripped.ok) {
    const tsAnalysis = analyze(stripped.code)
    if (tsAnalysis.ok) return { ok: true, analysis: tsAnalysis, language: 'ts' }
    // Stripping keeps lines, not columns: compare by line.
    if (typeScriptFurther(jsError, code, lineOf(stripped.code, tsAnalysis.error.offset))) return failure(stripped.code, tsAnalysis.error)
  } else if (!stripped.error.tooDeep) {
    const jsx = await jsxInTypeScript(code)
    if (jsx !== undefined) return jsx
    if (typeScriptFurther(jsError, code, lineOf(code, stripped.error.offset))) return failure(code, stripped.error)
  }
  return failure(code, jsError)
}

/** The JavaScript parse stopped at a token TypeScript took, on a line before TypeScript's own error. */
function typeScriptFurther(jsError: ParseFailure, code: string, typeScriptLine: number): boolean {
  return jsError.message.startsWith('Unexpected token') && typeScriptLine > lineOf(code, jsError.offset)
}

function lineOf(text: string, offset: number): number {
  let line = 0
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) line++
  return line
}

function failure(text: string, error: ParseFailure): GuestParse {
  return { ok: false, error, text }
}

async function jsxInTypeScript(code: string): Promise<GuestParse | undefined> {
  const tsx = await stripTypes(code, true)
  if (!tsx.ok) return undefined
  const parsed = analyze(tsx.code)
  return parsed.ok ? undefined : failure(tsx.code, { ...parsed.error, message: JSX_MESSAGE })
}
