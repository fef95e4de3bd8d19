import type { RunEventListener, RunOptions } from '@cordon/core'
import type { CodeModeToolResult, CodeModeTransport } from '@mastra/core/tools'
import { callHookListener } from './call-hooks.js'
import { externalTools } from './external-tools.js'
import { codeModeResult } from './result-mapping.js'
import { lazySandbox, type SandboxSource } from '@cordon/select'

/** What Mastra hands a transport for one program. */
export type CodeModeRun = Parameters<CodeModeTransport['run']>[0]

export interface CordonCodeModeTransportOptions extends SandboxSource {
  /** Each program's memory cap in MB (default: the sandbox's, 128 unless you set another). */
  memoryLimit?: number
  /** The longest deadline any program gets, in ms, whatever `createCodeMode`'s `timeout` asks for. */
  maxTimeout?: number
  /**
   * Each run's cordon events (logs, tool calls, the result) as they happen. Set it here rather
   * than as a default of your sandbox: Mastra's tracing hooks make the transport set each run's
   * `onEvent`, which replaces the sandbox's.
   */
  onEvent?: RunEventListener
}

/** Mastra's CodeModeTransport that needs no WorkspaceSandbox, plus `dispose` for the sandbox it made. */
export interface CordonCodeModeTransport extends CodeModeTransport {
  readonly requiresSandbox: false
  run(opts: CodeModeRun): Promise<CodeModeToolResult>
  /** Ends the sandbox the transport made (none when you gave one); later runs throw `DISPOSED`. */
  dispose(): Promise<void>
}

/**
 * A CodeModeTransport for Mastra's `createCodeMode` that runs each program as one cordon run: the
 * model's TypeScript is stripped and run in the sandbox you give, or in one over `backend`, or
 * over the backend `@cordon/select` picks; each allow-listed tool is an `external_<id>` function
 * that calls the real Mastra tool on the host. The deadline covers awaits and tool calls; an
 * abort of Mastra's signal ends the run at once.
 */
export function createCordonCodeModeTransport(options: CordonCodeModeTransportOptions = {}): CordonCodeModeTransport {
  const source = lazySandbox(options, 'the cordon code-mode transport')
  return {
    requiresSandbox: false,
    async run(opts) {
      const { tools, toolIds } = externalTools(opts.toolIds, opts.dispatch)
      const sandbox = await source.get()
      const onEvent = callHookListener(opts, toolIds, options.onEvent)
      const runOptions: RunOptions = { tools, timeoutMs: deadline(opts.timeout, options.maxTimeout), logArgs: true }
      if (options.memoryLimit !== undefined) runOptions.memoryMb = options.memoryLimit
      if (opts.abortSignal !== undefined) runOptions.signal = opts.abortSignal
      if (onEvent !== undefined) runOptions.onEvent = onEvent
      if (opts.onExternalCall !== undefined) runOptions.includeToolValuesInEvents = true
      return codeModeResult(await sandbox.run(opts.program, runOptions))
    },
    dispose: () => source.dispose(),
  }
}

/** Mastra's timeout in whole ms (cordon's deadlines are integers), capped by `maxTimeout`. */
function deadline(timeout: number, maxTimeout: number | undefined): number {
  const ms = Math.ceil(timeout)
  return maxTimeout === undefined ? ms : Math.min(ms, maxTimeout)
}
