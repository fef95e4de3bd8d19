import { createInterface } from 'node:readline'
import type { FetchOptions, Sandbox, ToolSet } from '@cordon/core'
import { wantsColor } from './colors.js'
import { EXIT } from './exit-codes.js'
import { formatRunResult } from './format-result.js'
import { liveEvents } from './live-events.js'
import { loadGlobals } from './load-globals.js'
import { loadTools } from './load-tools.js'
import { restartWithNoNodeSnapshot, shouldRestartForIvm } from './no-node-snapshot.js'
import { writeLine, writeLines, writeStdout } from './output.js'
import { reportFailure } from './report-failure.js'
import { fetchFrom } from './fetch-flags.js'
import { limitsFrom, mayUseIvm, selectOptionsFrom, type SandboxFlags } from './run-options.js'

/**
 * `cordon repl`: each entry is a whole program run in a fresh sandbox, so nothing carries
 * over between entries (by design: a sandbox run never shares state with the next). A line
 * ending in `\` continues on the next line. Ctrl-C stops a running entry, or leaves.
 */
export async function replCommand(flags: SandboxFlags): Promise<number> {
  if (mayUseIvm(flags) && shouldRestartForIvm()) return restartWithNoNodeSnapshot()
  let tools: ToolSet | undefined
  let globals: Record<string, unknown> | undefined
  let fetch: FetchOptions | undefined
  let sandbox: Sandbox
  try {
    globals = flags.globals === undefined ? undefined : await loadGlobals(flags.globals)
    tools = flags.tools === undefined ? undefined : await loadTools(flags.tools)
    fetch = fetchFrom(flags)
    const { createSandbox } = await import('@cordon/select')
    sandbox = await createSandbox(selectOptionsFrom(flags))
  } catch (error) {
    return reportFailure(error, false)
  }

  const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: interactive, prompt: 'cordon> ' })
  const colorStderr = wantsColor(process.stderr)
  const format = { colorStdout: wantsColor(process.stdout), colorStderr, stats: flags.stats === true, logsStreamed: true }
  const onEvent = liveEvents({ logs: true, trace: flags.trace === true, colorStderr }, writeLine)
  const prompt = (text: string): void => {
    rl.setPrompt(text)
    rl.prompt()
  }
  let running: AbortController | undefined
  rl.on('SIGINT', () => (running ? running.abort(new Error('interrupted by Ctrl-C')) : rl.close()))
  if (interactive) {
    writeStdout(`cordon repl on ${sandbox.backend.name}: each entry runs alone in a fresh sandbox. .exit or Ctrl-D leaves.`)
    rl.prompt()
  }

  let pending = ''
  try {
    for await (const line of rl) {
      if (line.endsWith('\\')) {
        pending += `${line.slice(0, -1)}\n`
        if (interactive) prompt('...     ')
        continue
      }
      const code = pending + line
      pending = ''
      if (code.trim() === '.exit') break
      if (code.trim() !== '') {
        running = new AbortController()
        const result = await sandbox.run(code, {
          ...limitsFrom(flags),
          ...(tools && { tools }),
          ...(globals && { globals }),
          ...(fetch && { fetch }),
          onEvent,
          signal: running.signal,
        })
        running = undefined
        writeLines(formatRunResult(result, { code, source: code, name: '[repl]', lineShift: 0 }, format))
      }
      if (interactive) prompt('cordon> ')
    }
  } catch (error) {
    return reportFailure(error, false, sandbox.backend.name)
  } finally {
    rl.close()
    await sandbox.dispose()
  }
  return EXIT.OK
}
