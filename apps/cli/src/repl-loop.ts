import { createInterface, type Interface } from 'node:readline'
import type { RunEventListener, ToolSet } from '@cordon/core'
import type { Paint } from './colors.js'
import { entryStatus } from './entry-status.js'
import { EXIT } from './exit-codes.js'
import { formatRunResult, type HumanFormat } from './format-result.js'
import { writeLines, writeStderr, writeStdout } from './output.js'
import type { Program } from './read-program.js'
import { replCompleter } from './repl-completer.js'
import { DOT_COMMAND, dotCommand, type DotContext } from './repl-dot-commands.js'
import { HISTORY_SIZE, keepHistory, readHistory } from './repl-history.js'
import { sessionEndedNotice, type ReplRunner } from './repl-runner.js'
import { reportFailure } from './report-failure.js'
import { withFileLines } from './run-in-sandbox.js'

export const PROMPT = 'cordon> '
/** As wide as the prompt, so that a block's lines line up. */
export const CONTINUATION = '...     '
const ENTRY_NAME = '[repl]'

export interface ReplLoopOptions {
  runner: ReplRunner
  backend: string
  tools: ToolSet | undefined
  /** stdin and stdout are a terminal: prompts, line editing, history, Tab. */
  interactive: boolean
  /** Printed first, on a terminal only. */
  banner: string
  historyFile: string | undefined
  format: HumanFormat
  onEvent: RunEventListener | undefined
  paintStdout: Paint
  paintStderr: Paint
}

/**
 * Reads entries and runs them until `.exit`, Ctrl-D, Ctrl-C twice on an empty line, or the end
 * of stdin. An unfinished entry (entry-status.ts) goes on on the next line. Ctrl-C stops the
 * running entry, else drops the unfinished entry or the line being typed. Resolves the exit
 * code: 0, or 130 when a signal ended a REPL that reads no terminal.
 */
export async function replLoop(options: ReplLoopOptions): Promise<number> {
  const { runner, interactive, format } = options
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: interactive,
    prompt: PROMPT,
    historySize: HISTORY_SIZE,
    history: interactive ? readHistory(options.historyFile) : [],
    completer: replCompleter(runner, Object.keys(options.tools ?? {})),
  })
  if (interactive && options.historyFile !== undefined) rl.on('history', keepHistory(options.historyFile))

  let pending: string[] = []
  let running: AbortController | undefined
  /** Ctrl-C was pressed once on an empty line: a second press leaves. */
  let armed = false
  let signalled = false
  let entries: string[] = []

  const prompt = (text = PROMPT): void => {
    if (!interactive) return
    rl.setPrompt(text)
    rl.prompt()
  }
  const onInterrupt = (): void => {
    if (running !== undefined) {
      running.abort(new Error('interrupted by Ctrl-C'))
    } else if (!interactive) {
      signalled = true
      rl.close()
    } else if (pending.length > 0 || rl.line !== '') {
      pending = []
      armed = false
      dropLine(rl)
    } else if (armed) {
      rl.close()
    } else {
      armed = true
      process.stdout.write('\n(To exit, press Ctrl-C again or Ctrl-D, or type .exit)\n')
      prompt()
    }
  }
  rl.on('SIGINT', onInterrupt)
  process.on('SIGINT', onInterrupt)
  let leftByCommand = false
  rl.on('close', () => {
    // Ctrl-D and Ctrl-C leave the cursor after the prompt.
    if (interactive && !leftByCommand) process.stdout.write('\n')
  })

  const runEntry = async (program: Program): Promise<void> => {
    running = new AbortController()
    try {
      const outcome = await runner.run(program.code, { signal: running.signal, onEvent: options.onEvent })
      writeLines(formatRunResult(withFileLines(outcome.result, program), program, format))
      if (outcome.sessionEnded !== undefined) {
        entries = []
        writeStderr(options.paintStderr('dim', sessionEndedNotice(outcome.sessionEnded)))
      } else if (outcome.result.ok) entries.push(program.source)
    } catch (error) {
      // Host trouble (the session could not be reopened, the backend is gone): say so, go on.
      reportFailure(error, false, options.backend)
    } finally {
      running = undefined
    }
  }
  const context: DotContext = {
    fresh: runner.fresh,
    tools: options.tools,
    get entries() {
      return entries
    },
    runProgram: runEntry,
    reset: async () => {
      await runner.reset()
      entries = []
    },
    paint: options.paintStdout,
  }

  if (interactive) writeStdout(options.banner)
  prompt()
  try {
    for await (const line of rl) {
      armed = false
      if (pending.length === 0) {
        const command = DOT_COMMAND.exec(line)
        if (command !== null) {
          if ((await dotCommand(command[1]!.toLowerCase(), command[2], context)) === 'exit') {
            leftByCommand = true
            break
          }
          prompt()
          continue
        }
      } else if (line.trim() === '.break') {
        pending = []
        prompt()
        continue
      }
      const code = [...pending, line].join('\n')
      if (code.trim() === '') {
        pending = []
      } else if ((await entryStatus(code)) === 'incomplete') {
        pending.push(line)
        prompt(CONTINUATION)
        continue
      } else {
        pending = []
        await runEntry({ code, source: code, name: ENTRY_NAME, lineShift: 0 })
      }
      prompt()
    }
    // The input ended inside an entry: running it reports where it stops short.
    if (pending.length > 0) {
      const code = pending.join('\n')
      await runEntry({ code, source: code, name: ENTRY_NAME, lineShift: 0 })
    }
  } finally {
    process.off('SIGINT', onInterrupt)
    rl.close()
  }
  return signalled ? EXIT.SIGINT : EXIT.OK
}

/**
 * Ctrl-C on a line being typed: the line stays on screen as typed, a fresh prompt comes on the
 * next (readline's own keys: Ctrl-E to its end, Ctrl-U to empty it, which redraws the prompt).
 */
function dropLine(rl: Interface): void {
  rl.write(null, { ctrl: true, name: 'e' })
  process.stdout.write('\n')
  rl.setPrompt(PROMPT)
  if (rl.line === '') rl.prompt()
  else rl.write(null, { ctrl: true, name: 'u' })
}
