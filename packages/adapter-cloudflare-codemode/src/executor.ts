import type { ModuleMap, RunResult } from '@cordon/core'
import { lazySandbox, type SandboxSource } from '@cordon/select'
import type { ExecuteOptions, ExecuteResult, ProviderFunction, ResolvedProvider } from './executor-contract.js'
import { NAMESPACES_MODULE, namespacesModule } from './guest-namespaces.js'
import { hostTools } from './host-tools.js'
import { codePosition, programText, type Program } from './program-text.js'
import { executeResult, hostErrorText } from './result-mapping.js'

/** DynamicWorkerExecutor's default deadline. */
const DEFAULT_TIMEOUT_MS = 60_000

export interface CordonExecutorOptions extends SandboxSource {
  /**
   * Each execution's deadline in ms, covering awaits and tool calls. Default: 60,000 (as
   * DynamicWorkerExecutor); with `sandbox`, that sandbox's `timeoutMs`.
   */
  timeout?: number
  /**
   * ES modules the code may import, by exact specifier (`await import('helpers.js')`), as
   * DynamicWorkerExecutor's `modules`. They replace a given sandbox's default `modules`.
   */
  modules?: ModuleMap
  /** Aborts every execution in flight, and every later one at once. */
  signal?: AbortSignal
}

/** Cloudflare's ExecuteOptions, plus a signal that aborts this one execution. */
export interface CordonExecuteOptions extends ExecuteOptions {
  signal?: AbortSignal
}

/** Cloudflare codemode's Executor, plus `dispose` for the sandbox the executor made (none when you gave one). */
export interface CordonExecutor {
  execute(
    code: string,
    providersOrFns: ResolvedProvider[] | Record<string, ProviderFunction>,
    options?: CordonExecuteOptions,
  ): Promise<ExecuteResult>
  dispose(): Promise<void>
}

/**
 * An Executor for `@cloudflare/codemode` (`createCodeTool`, `codeMcpServer`, `openApiMcpServer`)
 * whose executions are cordon runs: each provider is a namespace of the guest (`codemode.search(…)`,
 * every argument passed on), each prelude runs before the code in the same realm, connectors get
 * their calls, and values cross by cordon's value model (binary data intact). Runs go to `sandbox`,
 * or to a sandbox over `backend`, or over the backend `@cordon/select` picks. Never throws: every
 * failure is the result's `error`.
 */
export function createCordonExecutor(options: CordonExecutorOptions = {}): CordonExecutor {
  const source = lazySandbox(options, 'the cordon executor')
  const timeoutMs = options.timeout ?? (options.sandbox === undefined ? DEFAULT_TIMEOUT_MS : undefined)
  return {
    async execute(code, providersOrFns, executeOptions = {}) {
      try {
        // A plain record of functions is the older form of one `codemode` provider.
        const providers = Array.isArray(providersOrFns) ? providersOrFns : [{ name: 'codemode', fns: providersOrFns }]
        const host = hostTools(providers, executeOptions.connectors ?? [])
        if (!host.ok) return { result: undefined, error: host.error, logs: [] }
        const signals = [options.signal, executeOptions.signal].filter((signal) => signal !== undefined)
        const sandbox = await source.get()
        const program = programText(code)
        const result = await sandbox.run(program.text, {
          tools: host.tools,
          modules: { ...options.modules, [NAMESPACES_MODULE]: namespacesModule(host.plan) },
          logArgs: true,
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
          ...(signals.length === 0 ? {} : { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) }),
        })
        return executeResult(inCallersLines(result, program))
      } catch (error) {
        // Host misuse `run` throws for (bad options, a disposed sandbox): an executor reports, never throws.
        return { result: undefined, error: hostErrorText(error), logs: [] }
      }
    },
    dispose: () => source.dispose(),
  }
}

/** The error's line and column in the code the caller passed, not in the program around it. */
function inCallersLines(result: RunResult, program: Program): RunResult {
  if (result.ok || result.error.line === undefined) return result
  return { ...result, error: { ...result.error, ...codePosition(program, result.error.line, result.error.column) } }
}
