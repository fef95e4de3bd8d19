import { parse, type Options } from 'acorn'

/**
 * Is a REPL entry finished, or does it go on on the next line? Acorn (core's parser) decides
 * for JavaScript: an entry is unfinished when the parser stopped because the input ended — a
 * block, call, array or expression still open (its error sits at the very end of the text), a
 * template or block comment never closed, or a string whose last line ends with a `\` line
 * continuation. Any other error is a real one: the entry is run and core reports it with its
 * line and column, as `cordon run` would.
 *
 * Only when JavaScript fails before the end is the entry read as TypeScript (sucrase, as core
 * does, loaded on first need): `function f(n: number) {` goes on too.
 */
export type EntryStatus = 'complete' | 'incomplete'

const SCRIPT: Options = { ecmaVersion: 'latest', sourceType: 'script', allowAwaitOutsideFunction: true, allowReturnOutsideFunction: true }
const MODULE: Options = { ...SCRIPT, sourceType: 'module' }
const IMPORT_EXPORT_IN_SCRIPT = "'import' and 'export' may appear only with 'sourceType: module'"

interface ParseError {
  message: string
  /** Offset of the error in the entry. */
  pos: number
}

export async function entryStatus(code: string): Promise<EntryStatus> {
  let error = javascriptError(code)
  if (error === undefined) return 'complete'
  if (endsEarly(error, code)) return 'incomplete'
  error = await typescriptError(code)
  return error !== undefined && endsEarly(error, code) ? 'incomplete' : 'complete'
}

function javascriptError(code: string): ParseError | undefined {
  const error = tryParse(() => parse(code, SCRIPT))
  // `import` and `export` make it a module (core accepts both).
  return error?.message.startsWith(IMPORT_EXPORT_IN_SCRIPT) === true ? tryParse(() => parse(code, MODULE)) : error
}

async function typescriptError(code: string): Promise<ParseError | undefined> {
  const { transform } = await import('sucrase')
  return tryParse(() => transform(code, { transforms: ['typescript'], disableESTransforms: true, keepUnusedImports: true }))
}

function tryParse(parseIt: () => unknown): ParseError | undefined {
  try {
    parseIt()
    return undefined
  } catch (error) {
    const { message, pos } = error as { message?: unknown; pos?: unknown }
    // Not a syntax error (a parser bug, a stack overflow on absurd nesting): let core report it.
    if (typeof message !== 'string' || typeof pos !== 'number') return { message: String(error), pos: -1 }
    return { message, pos }
  }
}

/** The parser ran out of input rather than into a mistake. */
function endsEarly(error: ParseError, code: string): boolean {
  if (/^Unterminated (template|comment)\b/.test(error.message)) return true
  if (error.message.startsWith('Unterminated string constant')) return /(^|[^\\])(\\\\)*\\\r?\n?$/.test(code)
  // Acorn puts an error at the end-of-input token (after trailing spaces and comments); sucrase
  // says so in words, or at the last offset.
  if (error.message.startsWith('Unexpectedly reached the end of input')) return true
  // A real token there would start before the end of the trimmed text.
  return error.message.startsWith('Unexpected token') && error.pos >= code.trimEnd().length
}
