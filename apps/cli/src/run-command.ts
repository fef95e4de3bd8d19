import type { FetchOptions, RunResult, Sandbox, ToolSet } from '@cordon/core'
import { wantsColor } from './colors.js'
import { EXIT, exitCodeFor } from './exit-codes.js'
import { runResultDocument } from './format-json.js'
import { formatRunResult } from './format-result.js'
import { liveEvents } from './live-events.js'
import { onInterrupt } from './interrupt.js'
import { loadGlobals } from './load-globals.js'
import { loadTools } from './load-tools.js'
import { restartWithNoNodeSnapshot, shouldRestartForIvm } from './no-node-snapshot.js'
import { writeLine, writeLines, writeStdout } from './output.js'
import { readProgram, type Program } from './read-program.js'
import { reportFailure } from './report-failure.js'
import { fetchFrom } from './fetch-flags.js'
import { debugOptionsFrom, limitsFrom, profiling, mayUseIvm, selectOptionsFrom, type DebugFlags, type SandboxFlags } from './run-options.js'
import { writeCpuProfile } from './cpu-profile-file.js'

export interface RunFlags extends SandboxFlags, DebugFlags {
  eval?: string
  json?: boolean
}

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
    const colorStderr = wantsColor(process.stderr)
    // People see each log line as the guest writes it; --json keeps its one document at the end.
    const onEvent = liveEvents({ logs: !json, trace: flags.trace === true, colorStderr }, writeLine)
    const result = withFileLines(
      await sandbox.run(program.code, {
        ...limitsFrom(flags),
        ...(tools !== undefined && { tools }),
        ...(globals !== undefined && { globals }),
        ...(fetch !== undefined && { fetch }),
        ...(onEvent !== undefined && { onEvent }),
        ...debugOptionsFrom(flags),
        signal: interrupt.signal,
      }),
      program,
    )
    if (profiling(flags) && result.cpuProfile !== undefined) {
      const written = await writeCpuProfile(result.cpuProfile, flags.cpuProfName)
      process.stderr.write(`CPU profile written to ${written}\n`)
    }
    if (json) writeStdout(runResultDocument(result, sandbox.backend.name))
    else {
      const format = { colorStdout: wantsColor(process.stdout), colorStderr, stats: flags.stats === true, logsStreamed: true }
      writeLines(formatRunResult(result, program, format))
    }
    return result.ok ? EXIT.OK : exitCodeFor(result.error.code, interrupt.by)
  } catch (error) {
    return reportFailure(error, json, sandbox?.backend.name ?? null)
  } finally {
    await sandbox?.dispose()
    interrupt.dispose()
  }
}

/** Error lines point into the file as written, not into the fence the CLI may have added. */
export function withFileLines(result: RunResult, program: Program): RunResult {
  if (result.ok || result.error.line === undefined || program.lineShift === 0) return result
  return { ...result, error: { ...result.error, line: Math.max(1, result.error.line - program.lineShift) } }
}
