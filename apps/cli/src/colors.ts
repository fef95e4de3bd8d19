/**
 * Colour only for a person at a terminal: the stream is a TTY and NO_COLOR is unset
 * (https://no-color.org). FORCE_COLOR=1 forces it for a piped stream; NO_COLOR wins.
 * Raw ANSI rather than util.styleText: styleText's own TTY checks differ between Node lines.
 */
export function wantsColor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true
  return stream.isTTY === true
}

export type Style = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan'

const CODES: Record<Style, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
}

export type Paint = (style: Style, text: string) => string

export function painter(enabled: boolean): Paint {
  return enabled ? (style, text) => `\u001b[${CODES[style][0]}m${text}\u001b[${CODES[style][1]}m` : (_style, text) => text
}

/** Width on screen, ignoring colour codes (for alignment). */
export function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[\d+m/g, '').length
}
