import type { FetchOptions, RunResult, Sandbox, ToolSet } from '@cordon/core'
import { exitCodeFor, EXIT } from './exit-codes.js'
import { runResultDocument } from './format-json.js'
import { formatRunResult, type OutputLine } from './format-result.js'
import { liveEvents } from './live-events.js'
import { reportFailure } from './report-failure.js'
import type { Program } from './read-program.js'
import { debugOptionsFrom, limitsFrom, profiling, type DebugFlags, type SandboxFlags } from './run-options.js'
import { writeCpuProfile } from './cpu-profile-file.js'

export interface RunFlags extends SandboxFlags, DebugFlags {
  eval?: string
  json?: boolean
}

/** Where a run's output goes: this process's stdout and stderr, or a daemon's client (daemon/). */
export interface RunOutput {
  write(line: OutputLine): void
  colorStdout: boolean
  colorStderr: boolean
}

/** What the host gives the run besides its flags. */
export interface RunHostParts {
  tools?: ToolSet
  globals?: Record<string, unknown>
  fetch?: FetchOptions
  /** Aborts the run (Ctrl-C); `interruptedBy()` then names the signal. */
  signal: AbortSignal
  interruptedBy(): NodeJS.Signals | undefined
}

/**
 * `cordon run` once it has its program and its sandbox: the run, its live logs, its printed
 * result; resolves the exit code. The same for a run in this process and one a daemon serves.
 */
export async function runInSandbox(
  sandbox: Sandbox,
  program: Program,
  flags: RunFlags,
  host: RunHostParts,
  out: RunOutput,
): Promise<number> {
  const json = flags.json === true
  try {
    // People see each log line as the guest writes it; --json keeps its one document at the end.
    const onEvent = liveEvents({ logs: !json, trace: flags.trace === true, colorStderr: out.colorStderr }, (line) => out.write(line))
    const result = withFileLines(
      await sandbox.run(program.code, {
        ...limitsFrom(flags),
        ...(host.tools !== undefined && { tools: host.tools }),
        ...(host.globals !== undefined && { globals: host.globals }),
        ...(host.fetch !== undefined && { fetch: host.fetch }),
        ...(onEvent !== undefined && { onEvent }),
        ...debugOptionsFrom(flags),
        signal: host.signal,
      }),
      program,
    )
    if (profiling(flags) && result.cpuProfile !== undefined) {
      const written = await writeCpuProfile(result.cpuProfile, flags.cpuProfName)
      out.write({ stream: 'stderr', text: `CPU profile written to ${written}` })
    }
    if (json) out.write({ stream: 'stdout', text: runResultDocument(result, sandbox.backend.name) })
    else {
      const format = { colorStdout: out.colorStdout, colorStderr: out.colorStderr, stats: flags.stats === true, logsStreamed: true }
      for (const line of formatRunResult(result, program, format)) out.write(line)
    }
    return result.ok ? EXIT.OK : exitCodeFor(result.error.code, host.interruptedBy())
  } catch (error) {
    return reportFailure(error, json, sandbox.backend.name, out)
  }
}

/** Error lines point into the file as written, not into the fence the CLI may have added. */
export function withFileLines(result: RunResult, program: Program): RunResult {
  if (result.ok || result.error.line === undefined || program.lineShift === 0) return result
  return { ...result, error: { ...result.error, line: Math.max(1, result.error.line - program.lineShift) } }
}
