/**
 * Markdown code fences around model-written code.
 *
 * This module reads the text as Markdown, line by line; it never looks inside the code. Regular
 * expressions are only applied to whole lines to recognise fence lines, never to rewrite code.
 */

/** Info-string languages that mark a block as JavaScript or TypeScript (compared lower-cased). */
const JS_LANGS = new Set(['js', 'javascript', 'jsx', 'mjs', 'cjs', 'node'])
const TS_LANGS = new Set(['ts', 'typescript', 'tsx', 'mts', 'cts'])

/** ```` ```lang extra words ```` — an info string may not contain a backtick (CommonMark). */
const OPENER = /^[ \t]*(`{3,})[ \t]*([^`\s]*)[^`]*$/
/** A closing fence: only backticks (at least as many as the opener) and blanks. */
const CLOSER = /^[ \t]*(`{3,})[ \t]*$/
/** The line terminators of ECMAScript (the same set acorn and V8 count lines with). */
const LINE_BREAK = /\r\n?|\n|\u2028|\u2029/g

export interface FencedBlock {
  /** The code between the fences. */
  body: string
  /** Lines of the original text before the first line of `body` (the opener and any prose above). */
  lineOffset: number
  /** The language of the info string, lower-cased ('' when absent). */
  lang: string
  /** True when the first non-blank line of the text is the opening fence (no prose before it). */
  atStart: boolean
  /** Offset of the first opening fence in the text (of any block). */
  firstFenceOffset: number
}

export function isTypeScriptLang(lang: string): boolean {
  return TS_LANGS.has(lang)
}

export function isScriptLang(lang: string): boolean {
  return JS_LANGS.has(lang) || TS_LANGS.has(lang)
}

interface RawBlock {
  lang: string
  /** Offset of the opener line. */
  openOffset: number
  /** Index of the opener line. */
  openLine: number
  /** Offset of the first character after the opener line's terminator. */
  bodyStart: number
  /** Offset of the terminator ending the last body line (or of the end of text). */
  bodyEnd: number
}

/**
 * Finds the fenced block to run, or undefined when the text has no fence (it is then code as is).
 *
 * Which block: models often write a sentence, then a block, sometimes several blocks (e.g. a
 * shell command, then the program, then an example output). We take the FIRST block whose
 * language tag says JavaScript/TypeScript; failing that the first block without a tag; failing
 * that the first block. Text outside the chosen block is ignored. An opener that is never closed
 * (truncated model output) runs to the end of the text; a last fence line with nothing after it
 * and no block before it is a stray closer, and the code is the text above it.
 *
 * A fence-looking line cannot occur inside meaningful JavaScript except inside a block comment
 * (a template literal cannot hold an unescaped backtick), so when the text does not START with a
 * fence (`atStart`) the caller checks whether the first fence sits inside a comment of otherwise
 * valid code.
 */
export function findFencedBlock(code: string): FencedBlock | undefined {
  // Fast path: the overwhelming majority of unfenced code has no triple backtick at all.
  if (!code.includes('```')) return undefined

  const blocks: RawBlock[] = []
  let open: { lang: string; ticks: number; openLine: number; openOffset: number; bodyStart: number } | undefined
  let firstContentLine = -1
  let lineIndex = 0
  let lineStart = 0
  const scanLine = (lineEnd: number, nextStart: number): void => {
    const line = code.slice(lineStart, lineEnd)
    if (open === undefined) {
      if (firstContentLine < 0 && line.trim() !== '') firstContentLine = lineIndex
      const m = OPENER.exec(line)
      if (m !== null) {
        open = {
          lang: languageOf(m[2] ?? ''),
          ticks: m[1]!.length,
          openLine: lineIndex,
          openOffset: lineStart,
          bodyStart: nextStart,
        }
      }
    } else {
      const m = CLOSER.exec(line)
      if (m !== null && m[1]!.length >= open.ticks) {
        const bodyEnd = Math.max(open.bodyStart, lineStart - lineBreakBefore(code, lineStart))
        blocks.push({ ...open, bodyEnd })
        open = undefined
      }
    }
  }
  LINE_BREAK.lastIndex = 0
  for (let m = LINE_BREAK.exec(code); m !== null; m = LINE_BREAK.exec(code)) {
    scanLine(m.index, m.index + m[0].length)
    lineStart = m.index + m[0].length
    lineIndex++
  }
  scanLine(code.length, code.length)
  if (open !== undefined) {
    if (code.slice(open.bodyStart).trim() !== '') {
      blocks.push({ ...open, bodyEnd: code.length })
    } else if (blocks.length === 0) {
      // A lone fence line with nothing after it: a stray closing fence after unfenced code (the
      // model forgot the opener). The code is what comes before it.
      return {
        body: code.slice(0, open.openOffset - lineBreakBefore(code, open.openOffset)),
        lineOffset: 0,
        lang: '',
        atStart: firstContentLine === open.openLine,
        firstFenceOffset: open.openOffset,
      }
    }
  }
  if (blocks.length === 0) return undefined

  const chosen = blocks.find((b) => isScriptLang(b.lang)) ?? blocks.find((b) => b.lang === '') ?? blocks[0]
  if (chosen === undefined) return undefined
  return {
    body: code.slice(chosen.bodyStart, chosen.bodyEnd),
    lineOffset: chosen.openLine + 1,
    lang: chosen.lang,
    atStart: firstContentLine === blocks[0]!.openLine,
    firstFenceOffset: blocks[0]!.openOffset,
  }
}

/** The language name at the start of an info string's first word: `js{1,3}` → `js`. */
function languageOf(word: string): string {
  return (/^[\w+-]*/.exec(word)?.[0] ?? '').toLowerCase()
}

/** Length of the line terminator that ends just before `offset` (0 at the start of the text). */
function lineBreakBefore(code: string, offset: number): number {
  if (offset === 0) return 0
  if (offset >= 2 && code.charCodeAt(offset - 2) === 13 && code.charCodeAt(offset - 1) === 10) return 2
  return 1
}
