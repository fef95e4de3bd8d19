import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url))
export const PROMPT = 'cordon> '
export const CONTINUATION = '...     '

/** The `cordon repl` transcript of the README, as the tests replay it. */
export interface Transcript {
  /** The arguments after `cordon` on its `$` line (run from the repo root). */
  args: string[]
  /** The screen after the `$` line: banner, prompts with what was typed, output. */
  screen: string[]
  /** What was typed, one line each (prompts removed). */
  input: string[]
  /** What the REPL printed, stdout and stderr in order (no banner, no prompts). */
  output: string[]
}

const MARKER = '<!-- The tests replay this transcript'

export function readmeTranscript(): Transcript {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const start = readme.indexOf(MARKER)
  if (start < 0) throw new Error(`README.md has no "${MARKER}" comment`)
  const block = /```\n([\s\S]*?)\n```/.exec(readme.slice(start))
  if (block === null) throw new Error('no code block after the transcript marker')
  const [command, ...screen] = block[1]!.split('\n')
  if (!command!.startsWith('$ cordon ')) throw new Error(`the transcript should start with "$ cordon …", not ${command}`)
  const input: string[] = []
  const output: string[] = []
  for (const line of screen.slice(1)) {
    if (line.startsWith(PROMPT)) input.push(line.slice(PROMPT.length))
    else if (line.startsWith(CONTINUATION)) input.push(line.slice(CONTINUATION.length))
    else output.push(line)
  }
  return { args: command!.split(' ').slice(2), screen, input, output }
}

/** The transcript's banner names the backend the README was written on. */
export function onBackend(line: string, backend: string): string {
  return line.replace(/^cordon repl on \w+/, `cordon repl on ${backend}`)
}
