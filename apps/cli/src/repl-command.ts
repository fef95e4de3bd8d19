import type { FetchOptions, Sandbox, ToolSet } from '@cordon/core'
import { painter, wantsColor } from './colors.js'
import { fetchFrom } from './fetch-flags.js'
import { liveEvents } from './live-events.js'
import { loadGlobals } from './load-globals.js'
import { loadTools } from './load-tools.js'
import { restartWithNoNodeSnapshot, shouldRestartForIvm } from './no-node-snapshot.js'
import { writeLine, writeStderr } from './output.js'
import { historyFile } from './repl-history.js'
import { replLoop } from './repl-loop.js'
import { createReplRunner, type ReplRunner } from './repl-runner.js'
import { reportFailure } from './report-failure.js'
import { limitsFrom, mayUseIvm, selectOptionsFrom, type SandboxFlags } from './run-options.js'
import { UsageError } from './usage-error.js'

export interface ReplFlags extends SandboxFlags {
  /** Each entry in a fresh sandbox, as before sessions: nothing carries over. */
  fresh?: boolean
}

/**
 * `cordon repl`: entries run one after another on one cordon session, so what an entry
 * declares is there for the next (`--fresh`: each in a fresh sandbox). The loop is
 * repl-loop.ts; where entries run, repl-runner.ts.
 */
export async function replCommand(flags: ReplFlags): Promise<number> {
  if (mayUseIvm(flags) && shouldRestartForIvm()) return restartWithNoNodeSnapshot()
  const fresh = flags.fresh === true
  let tools: ToolSet | undefined
  let globals: Record<string, unknown> | undefined
  let fetch: FetchOptions | undefined
  let sandbox: Sandbox | undefined
  let runner: ReplRunner
  try {
    fetch = fetchFrom(flags)
    if (fetch !== undefined && !fresh) {
      throw new UsageError('--fetch-allow needs --fresh in cordon repl: sessions have no fetch yet', {
        fix: 'add --fresh (each entry then runs alone in a fresh sandbox)',
      })
    }
    globals = flags.globals === undefined ? undefined : await loadGlobals(flags.globals)
    tools = flags.tools === undefined ? undefined : await loadTools(flags.tools)
    const { createSandbox } = await import('@cordon/select')
    sandbox = await createSandbox(selectOptionsFrom(flags))
    runner = await createReplRunner({ sandbox, fresh, limits: limitsFrom(flags), tools, globals, fetch, notify: writeStderr })
  } catch (error) {
    const code = reportFailure(error, false, sandbox?.backend.name ?? null)
    await sandbox?.dispose()
    return code
  }

  const colorStdout = wantsColor(process.stdout)
  const colorStderr = wantsColor(process.stderr)
  const backend = sandbox.backend.name
  try {
    return await replLoop({
      runner,
      backend,
      tools,
      interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
      banner: fresh
        ? `cordon repl on ${backend} (--fresh): each entry runs alone in a fresh sandbox. .help for commands, Ctrl-D to leave.`
        : `cordon repl on ${backend}: entries share a session, so what one defines the next can use. .help for commands, Ctrl-D to leave.`,
      historyFile: historyFile(),
      format: { colorStdout, colorStderr, stats: flags.stats === true, logsStreamed: true },
      onEvent: liveEvents({ logs: true, trace: flags.trace === true, colorStderr }, writeLine),
      paintStdout: painter(colorStdout),
      paintStderr: painter(colorStderr),
    })
  } catch (error) {
    return reportFailure(error, false, backend)
  } finally {
    await runner.dispose()
    await sandbox.dispose()
  }
}
