export interface NormalizedProgram {
  /** One JavaScript expression: `(async function () {\n<body>\n})` — calling it runs the program. */
  script: string
  /** A line L of `script` is line L - lineDelta of the user's original code (fences included). */
  lineDelta: number
  language: 'js' | 'ts'
  /** With modules: the program's static imports, in the user's coordinates (line and column 1-based). */
  imports?: { specifier: string; line: number; column: number }[]
}

export interface NormalizeSyntaxError {
  name: 'SyntaxError'
  /** A clean message, without acorn's trailing " (line:column)". */
  message: string
  /** 1-based, in the user's ORIGINAL code (fence lines counted). */
  line: number
  /** 1-based. */
  column: number
}

export type NormalizeResult = { ok: true; program: NormalizedProgram } | { ok: false; error: NormalizeSyntaxError }
