import type { FetchOptions, Sandbox, ToolSet } from '@cordon/core'
import { wantsColor } from './colors.js'
import { onInterrupt } from './interrupt.js'
import { loadGlobals } from './load-globals.js'
import { loadTools } from './load-tools.js'
import { restartWithNoNodeSnapshot, shouldRestartForIvm } from './no-node-snapshot.js'
import { writeLine } from './output.js'
import { readProgram, type Program } from './read-program.js'
import { reportFailure } from './report-failure.js'
import { fetchFrom } from './fetch-flags.js'
import { runInSandbox, type RunFlags } from './run-in-sandbox.js'
import { mayUseIvm, selectOptionsFrom } from './run-options.js'

export type { RunFlags } from './run-in-sandbox.js'

/** `cordon run <file|->`: one program, one sandbox; resolves the exit code. */
export async function runCommand(file: string | undefined, flags: RunFlags): Promise<number> {
  // Before anything reads stdin: the restarted process reads it instead.
  if (mayUseIvm(flags) && shouldRestartForIvm()) return restartWithNoNodeSnapshot()
  const json = flags.json === true

  let program: Program
  let globals: Record<string, unknown> | undefined
  let tools: ToolSet | undefined
  let fetch: FetchOptions | undefined
  try {
    fetch = fetchFrom(flags)
    program = await readProgram(file, flags.eval)
    globals = flags.globals === undefined ? undefined : await loadGlobals(flags.globals)
    tools = flags.tools === undefined ? undefined : await loadTools(flags.tools)
  } catch (error) {
    return reportFailure(error, json)
  }

  const interrupt = onInterrupt()
  let sandbox: Sandbox | undefined
  try {
    // Loaded here, not at startup: `cordon --help` stays instant.
    const { createSandbox } = await import('@cordon/select')
    sandbox = await createSandbox(selectOptionsFrom(flags))
    const out = { write: writeLine, colorStdout: wantsColor(process.stdout), colorStderr: wantsColor(process.stderr) }
    return await runInSandbox(
      sandbox,
      program,
      flags,
      { tools, globals, fetch, signal: interrupt.signal, interruptedBy: () => interrupt.by },
      out,
    )
  } catch (error) {
    return reportFailure(error, json, sandbox?.backend.name ?? null)
  } finally {
    await sandbox?.dispose()
    interrupt.dispose()
  }
}
