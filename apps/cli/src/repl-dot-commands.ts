import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { ToolSet } from '@cordon/core'
import type { Paint } from './colors.js'
import { writeStderr, writeStdout } from './output.js'
import { readProgram, type Program } from './read-program.js'
import { toolSignatures } from './tool-signatures.js'
import { messageOf } from './usage-error.js'

/** What a dot command may touch in the REPL. */
export interface DotContext {
  fresh: boolean
  tools: ToolSet | undefined
  /** The entries that ran without error since the session began, for `.save`. */
  entries: readonly string[]
  /** Runs a file's program as one entry. */
  runProgram(program: Program): Promise<void>
  reset(): Promise<void>
  paint: Paint
}

export type DotOutcome = 'exit' | 'done'

/** `.name` at the start of an entry (`.5 + 1` is a number, not a command). */
export const DOT_COMMAND = /^\s*\.([A-Za-z]+)(?:\s+(.*?))?\s*$/

const HELP: [string, string][] = [
  ['.help', 'this list'],
  ['.tools', 'the tools (from --tools) with their signatures'],
  ['.load FILE', 'run a file (JavaScript, TypeScript, a markdown fence) as one entry'],
  ['.save FILE', 'write the entries that ran without error since the session began'],
  ['.reset', 'start a new session: forget everything entries defined'],
  ['.break', 'drop the unfinished entry (or press Ctrl-C)'],
  ['.exit', 'leave (or press Ctrl-D, or Ctrl-C twice on an empty line)'],
]

const KEYS = 'Tab completes globals, members and tool names; up/down recall earlier lines; Ctrl-C stops a running entry.'

export async function dotCommand(name: string, argument: string | undefined, context: DotContext): Promise<DotOutcome> {
  const { paint } = context
  switch (name) {
    case 'exit':
      return 'exit'
    case 'help':
      for (const [command, what] of HELP) writeStdout(`${paint('bold', command.padEnd(12))} ${what}`)
      writeStdout(paint('dim', KEYS))
      break
    case 'tools':
      showTools(context)
      break
    case 'reset':
      if (context.fresh) writeStdout('every entry already runs in a fresh sandbox (--fresh): nothing to reset')
      else {
        await context.reset()
        writeStdout('a new session is open: what earlier entries defined is gone')
      }
      break
    case 'break':
      break
    case 'load':
      if (argument === undefined || argument === '-') return usage('.load FILE')
      try {
        await context.runProgram(await readProgram(argument, undefined))
      } catch (error) {
        // A UsageError from readProgram: `cannot read FILE: no such file`.
        writeStderr(`cordon: ${error instanceof Error ? error.message : String(error)}`)
      }
      break
    case 'save':
      if (argument === undefined) return usage('.save FILE')
      await save(argument, context.entries)
      break
    default:
      writeStderr(`cordon: unknown command .${name} (.help lists them)`)
  }
  return 'done'
}

function showTools({ tools, paint }: DotContext): void {
  const signatures = toolSignatures(tools ?? {})
  if (signatures.length === 0) writeStdout('no tools: give some with --tools <module>')
  for (const { signature, description } of signatures) {
    writeStdout(signature)
    if (description !== undefined && description !== '') writeStdout(paint('dim', `    ${description}`))
  }
}

async function save(file: string, entries: readonly string[]): Promise<void> {
  try {
    await writeFile(path.resolve(file), joinEntries(entries))
    writeStdout(`saved ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'} to ${file}`)
  } catch (error) {
    writeStderr(`cordon: cannot write ${file}: ${messageOf(error)}`)
  }
}

/**
 * The entries as one program, each on its own lines. An entry that starts with a character that
 * would continue the previous line's expression (`(`, `[`, a template…) gets a `;` first.
 */
export function joinEntries(entries: readonly string[]): string {
  return entries.map((entry) => (/^\s*[([`+\-/]/.test(entry) ? `;${entry}` : entry)).join('\n') + (entries.length > 0 ? '\n' : '')
}

function usage(form: string): DotOutcome {
  writeStderr(`cordon: usage: ${form}`)
  return 'done'
}
