import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { UsageError } from './usage-error.js'

export interface Program {
  /** What is passed to `sandbox.run`. */
  code: string
  /** The text as the user wrote it, for code frames in error messages. */
  source: string
  /** How the program is named in messages: the path as typed, `[stdin]` or `[eval]`. */
  name: string
  /** Lines `code` has above `source` (a fence the CLI added): subtract from error lines. */
  lineShift: number
}

const TS_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx'])

/** Reads the program from a file, from stdin (`-`) or from `--eval`. */
export async function readProgram(file: string | undefined, evalCode: string | undefined): Promise<Program> {
  if (file !== undefined && evalCode !== undefined) throw new UsageError('give a program file or --eval, not both')
  if (evalCode !== undefined) return plain(evalCode, '[eval]')
  if (file === undefined) throw new UsageError('no program: give a file, - for stdin, or --eval <code>')
  if (file === '-') return plain(await readStdin(), '[stdin]')

  let text: string
  try {
    text = await readFile(path.resolve(file), 'utf8')
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${fileProblem(error)}`, { cause: error })
  }
  const source = stripBom(text)
  // Some TypeScript is also valid JavaScript with another meaning (`f<T>(x)` is a comparison
  // in JavaScript) and core tries JavaScript first; a ts fence tells core the file's language.
  // A file that already holds a fence is left alone: core finds the block itself.
  if (TS_EXTENSIONS.has(path.extname(file).toLowerCase()) && !source.includes('```')) {
    return { code: `\`\`\`ts\n${source}\n\`\`\``, source, name: file, lineShift: 1 }
  }
  return { code: source, source, name: file, lineShift: 0 }
}

function plain(text: string, name: string): Program {
  const source = stripBom(text)
  return { code: source, source, name, lineShift: 0 }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin as AsyncIterable<Buffer | string>)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  return Buffer.concat(chunks).toString('utf8')
}

/** Editors do not count a byte-order mark as a column; neither do error positions. */
function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT') return 'no such file'
  if (code === 'EISDIR') return 'it is a directory'
  if (code === 'EACCES') return 'permission denied'
  return error instanceof Error ? error.message : String(error)
}
