/**
 * The normalization itself, a pure function of the code and the options: index.ts runs it on the
 * host's thread or hands it to the parse thread (parse-thread/).
 */
import { failure } from './failure.js'
import { findFencedBlock, isTypeScriptLang } from './fences.js'
import { parseGuestCode } from './language.js'
import { NEEDS_SUCRASE } from './sucrase-loader.js'
import { isInsideComment, lineColumn, verify, type ParseFailure } from './parse.js'
import { lineStartsOf, rememberProgram, toUserPosition, type Edit } from './positions.js'
import { applyEdits } from './splice.js'
import { transformStatements } from './transform.js'
import type { NormalizedProgram, NormalizeResult } from './types.js'
import { dynamicImportOffsets, renameDynamicImports } from './imports.js'
import { parseScript } from './parse.js'

/** What positions.ts remembers of a program, so the thread that receives it can remember it too. */
export interface ProgramMemo {
  edits: readonly Edit[]
  body: string
}

export interface Normalized {
  result: NormalizeResult
  memo?: ProgramMemo
}

export interface ProgramRequest {
  code: string
  persistTopLevel: boolean
  imports: boolean
}

export async function normalizeProgram(
  { code, persistTopLevel, imports }: ProgramRequest,
  sucraseHere: boolean,
): Promise<Normalized | typeof NEEDS_SUCRASE> {
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
  const parsed = await parseGuestCode(body, isTypeScriptLang(lang), sucraseHere)
  if (parsed === NEEDS_SUCRASE) return NEEDS_SUCRASE
  if (!parsed.ok) {
    const pos = lineColumn(parsed.text, parsed.error.offset)
    return { result: failure(parsed.error.message, pos.line + lineOffset, pos.column) }
  }
  const { analysis, language } = parsed

  // 4. Rewrite the top level so the program's value is returned.
  const { wrapped } = analysis
  const transformed = transformStatements(wrapped, analysis.statements, analysis.module, persistTopLevel, imports)
  if (!transformed.ok) {
    const pos = lineColumn(wrapped, transformed.offset)
    return { result: failure(transformed.message, pos.line - 1 + lineOffset, pos.column) }
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
  const memo: ProgramMemo = { edits, body }

  // 5. The result must parse as one wrapper expression. Skipped when step 3 already parsed this
  //    very text in that shape, or that text with the last expression merely parenthesised.
  if (!analysis.verified || transformed.recheck) {
    const failure = verify(program.script)
    if (failure !== undefined) return { result: scriptErrorAt(program, failure) }
  }
  // 6. With modules, `import(x)` calls the registry (same length: nothing moves).
  if (imports && program.script.includes('import')) {
    const ast = parseScript(program.script)
    if (ast !== undefined) program.script = renameDynamicImports(program.script, dynamicImportOffsets(ast))
  }
  return { result: { ok: true, program }, memo }
}

function scriptErrorAt(program: NormalizedProgram, parseFailure: ParseFailure): NormalizeResult {
  const pos = lineColumn(program.script, parseFailure.offset)
  // A failure on a wrapper line (first or last) is reported on the nearest line of the user's code.
  const lastLine = lineStartsOf(program.script).length - 1
  const line = Math.min(Math.max(pos.line, 2), Math.max(lastLine, 2))
  const user = toUserPosition(program, line, line === pos.line ? pos.column : 1)
  return failure(parseFailure.message, user?.line ?? 1, user?.column ?? 1)
}

/** Offset of the first line terminator (the end of the first line). */
function lineEnd(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) return i
  }
  return text.length
}
