import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import { writeStderr } from './output.js'

/** Lines kept, in the file and for up/down (as many as Node's own REPL keeps). */
export const HISTORY_SIZE = 1000
/** A longer line (a pasted file) is not worth recalling and would bloat the file: it is not kept. */
const MAX_LINE_CHARS = 4096

export const HISTORY_ENV = 'CORDON_REPL_HISTORY'

/** `~/.cordon_repl_history`, elsewhere with CORDON_REPL_HISTORY, none when that is empty. */
export function historyFile(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const chosen = env[HISTORY_ENV]
  if (chosen === undefined) return path.join(homedir(), '.cordon_repl_history')
  return chosen.trim() === '' ? undefined : path.resolve(chosen)
}

/** The lines of the file, newest first (readline's order); none when it does not exist yet. */
export function loadHistory(file: string): string[] {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '' && line.length <= MAX_LINE_CHARS)
    .reverse()
    .slice(0, HISTORY_SIZE)
}

/**
 * Writes the history, oldest line first, readable by its owner only (lines may hold secrets).
 * Through a temporary file and a rename, so that two REPLs ending together leave one whole file.
 */
export function saveHistory(file: string, newestFirst: readonly string[]): void {
  const lines = newestFirst.filter((line) => line.length <= MAX_LINE_CHARS && !line.includes('\n')).slice(0, HISTORY_SIZE)
  mkdirSync(path.dirname(file), { recursive: true })
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, lines.reverse().join('\n') + (lines.length > 0 ? '\n' : ''), { mode: 0o600 })
  renameSync(temporary, file)
}

/** The history for readline, or none (said on stderr) when the file cannot be read. */
export function readHistory(file: string | undefined): string[] {
  if (file === undefined) return []
  try {
    return loadHistory(file)
  } catch (error) {
    writeStderr(
      `cordon: cannot read the history file ${file}: ${(error as Error).message} (CORDON_REPL_HISTORY moves it, empty turns it off)`,
    )
    return []
  }
}

/** Saves the history after each line; a failure is reported once, and the REPL goes on. */
export function keepHistory(file: string): (history: string[]) => void {
  let failed = false
  return (history) => {
    try {
      saveHistory(file, history)
    } catch (error) {
      if (!failed) writeStderr(`cordon: cannot write the history file ${file}: ${(error as Error).message}`)
      failed = true
    }
  }
}
