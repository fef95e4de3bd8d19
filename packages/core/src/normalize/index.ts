/**
 * Code normalization: turns what a model wrote (fenced or not, JavaScript or TypeScript, a bare
 * expression, statements, an async arrow, an `export default`…) into one JavaScript expression,
 * `(async function () {\n<body>\n})`, whose call runs the program and resolves to its value.
 *
 * Steps: strip a Markdown fence (fences.ts) → drop a shebang → parse as JavaScript, or as
 * TypeScript through sucrase (language.ts, parse.ts, strip-types.ts; acorn with a patched scope
 * tracker, acorn-parser.ts) → rewrite the top level (transform.ts, splice.ts) → check that the
 * result parses. Lines are never added or removed, so `lineDelta` maps every line of `script` to
 * the user's code (positions.ts). The steps are normalize-program.ts; this module keeps recent
 * results (cache.ts) and picks the thread (parse-thread/).
 */
import { NormalizeCache } from './cache.js'
import { failure } from './failure.js'
import type { Normalized, ProgramRequest } from './normalize-program.js'
import { askParseThread, PARSE_HERE_MAX_CHARS } from '../parse-thread/parse-thread.js'
import { rememberProgram } from './positions.js'
import { NEEDS_SUCRASE, sucraseLoaded } from './sucrase-loader.js'
import type { NormalizeResult } from './types.js'

export type { NormalizedProgram, NormalizeResult, NormalizeSyntaxError } from './types.js'
export { bodyOf, toUserPosition } from './positions.js'

export interface NormalizeOptions {
  /** Session programs: top-level declarations persist as globals for the next run (persist.ts). */
  persistTopLevel?: boolean
  /** The run has modules: `import` declarations and `import()` use the guest's module registry (imports.ts). */
  imports?: boolean
}

const cache = new NormalizeCache()

let steps: Promise<typeof import('./normalize-program.js')> | undefined
/**
 * The steps and their parser (acorn, ~6 ms to load) are loaded by the first program, not by
 * importing core: that program's backend has started preparing by then (sandbox.ts), so a fresh
 * process's first engine starts that much sooner.
 */
function loadSteps(): Promise<typeof import('./normalize-program.js')> {
  if (steps === undefined) {
    steps = import('./normalize-program.js')
    // A failed load (a broken install) is retried by the next program.
    steps.catch(() => (steps = undefined))
  }
  return steps
}

export async function normalizeCode(code: string, options: NormalizeOptions = {}): Promise<NormalizeResult> {
  if (typeof code !== 'string') return failure('Code must be a string', 1, 1)
  const persist = options.persistTopLevel === true
  const imports = options.imports === true
  const variant = (persist ? 'p' : 'r') + (imports ? 'i' : '')
  const cached = cache.get(code, variant)
  if (cached !== undefined) return cached
  const result = await normalizeAnywhere({ code, persistTopLevel: persist, imports })
  cache.set(code, variant, result)
  return result
}

/**
 * Parsing a large program, and loading sucrase for the first TypeScript (or unparsable) one, are
 * synchronous work: they run on the parse thread where there is one (parse-thread/), so no
 * guest's code holds the host's event loop (a 1 MB program held it 700 ms on a slow VM, the first
 * TypeScript one 130 ms). Without one (browsers, a bundle without the worker file) everything runs
 * here.
 */
async function normalizeAnywhere(request: ProgramRequest): Promise<NormalizeResult> {
  if (request.code.length <= PARSE_HERE_MAX_CHARS) {
    const { normalizeProgram } = await loadSteps()
    const here = await normalizeProgram(request, sucraseLoaded())
    if (here !== NEEDS_SUCRASE) return here.result
  }
  const elsewhere = await askParseThread({ kind: 'program', request })
  if (elsewhere === undefined) return ((await (await loadSteps()).normalizeProgram(request, true)) as Normalized).result
  if ('outOfMemory' in elsewhere) return failure('the program is too large to parse: the parser ran out of memory', 1, 1)
  return adopt(elsewhere.answer as Normalized)
}

/** A program normalized on another thread, with its column edits remembered on this one. */
function adopt({ result, memo }: Normalized): NormalizeResult {
  if (result.ok && memo !== undefined) rememberProgram(result.program, memo.edits, memo.body)
  return result
}
