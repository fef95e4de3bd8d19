/**
 * A source map from the script the engine runs back to the code the user wrote, so a debugger
 * shows (and sets breakpoints in) their program, TypeScript types included, not cordon's wrapper.
 *
 * Lines map by `lineDelta` alone; columns through the edits normalization made (positions.ts)
 * and, for TypeScript, through sucrase's own map of the type-stripped text. One mapping per token
 * of the script: enough for breakpoints, stepping and stack positions to land where written.
 */
import { encode, decode, type SourceMapMappings, type SourceMapSegment } from '@jridgewell/sourcemap-codec'
import { bodyOf, toUserPosition, type NormalizedProgram } from '../normalize/index.js'
import { lineStartsOf } from '../normalize/positions.js'
import { loadSucrase } from '../normalize/sucrase-loader.js'
import { programSourceName } from './program-source-name.js'

const TOKEN = /[\w$]+|[^\s\w$]/g

/**
 * `script` with a trailing `//# sourceMappingURL=` comment mapping it to the program's code (`code`
 * as given, or what its Markdown fence held; script line L is line L - 1 of that).
 */
export async function withSourceMap(script: string, program: NormalizedProgram, code: string, filename: string): Promise<string> {
  // The debugger shows the code itself: what was inside a Markdown fence, without the fence.
  const body = bodyOf(program) ?? code
  const typeMap = program.language === 'ts' ? await strippedToTyped(body) : undefined
  const starts = lineStartsOf(script)
  const mappings: SourceMapMappings = []
  for (let line = 1; line <= starts.length; line++) {
    const text = script.slice(starts[line - 1], line < starts.length ? starts[line] : script.length)
    const segments: SourceMapSegment[] = []
    TOKEN.lastIndex = 0
    for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) {
      const user = toUserPosition(program, line, m.index + 1)
      if (user === undefined) break
      const column = (user.column ?? 1) - 1
      // Script line L is line L - 1 of the body (and of its stripped text): the wrapper's line first.
      const typed = typeMap === undefined ? column : typedColumn(typeMap[line - 2], column)
      // The line's indentation belongs to the line too: a breakpoint set at its column 0 lands.
      if (segments.length === 0 && m.index > 0) segments.push([0, 0, line - 2, 0])
      segments.push([m.index, 0, line - 2, typed])
    }
    mappings.push(segments)
  }
  const map = {
    version: 3,
    file: filename,
    sources: [programSourceName(program)],
    sourcesContent: [body],
    names: [],
    mappings: encode(mappings),
  }
  // Spelled in two parts so that no tool reading this module takes the line for its own source map.
  return `${script}\n//# ${'sourceMappingURL'}=data:application/json;charset=utf-8;base64,${base64Utf8(JSON.stringify(map))}`
}

/** Base64 of the UTF-8 bytes (btoa takes Latin-1 only), in chunks that fit in one call's arguments. */
function base64Utf8(text: string): string {
  const bytes = new TextEncoder().encode(text)
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}

/** Per line of the stripped text, sucrase's segments: [strippedColumn, 0, line, typedColumn]. */
async function strippedToTyped(body: string): Promise<SourceMapMappings | undefined> {
  const sucrase = await loadSucrase()
  try {
    // The same transform as normalization's (strip-types.ts), asking for its map too.
    const result = sucrase.transform(body, {
      transforms: ['typescript'],
      disableESTransforms: true,
      keepUnusedImports: true,
      filePath: 'program.ts',
      sourceMapOptions: { compiledFilename: 'program.js' },
    })
    return result.sourceMap === undefined ? undefined : decode(result.sourceMap.mappings)
  } catch {
    return undefined
  }
}

/** The typed text's column for a stripped one: the nearest segment at or before it, plus the rest. */
function typedColumn(segments: readonly SourceMapSegment[] | undefined, column: number): number {
  let best: SourceMapSegment | undefined
  for (const segment of segments ?? []) {
    if (segment[0] > column) break
    best = segment
  }
  if (best === undefined || best.length < 4) return column
  return best[3]! + (column - best[0])
}
