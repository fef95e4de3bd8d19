import { isSandboxError, type Session, type ToolSet } from '@cordon/core'
import type { ExecutionResult, IsolateContext, IsolateDriver, ToolBinding } from '@tanstack/ai-code-mode'
import { executionResult } from './result-mapping.js'
import { lazySandbox, type SandboxSource } from '@cordon/select'

export interface CordonIsolateDriverOptions extends SandboxSource {
  /** Each execution's deadline in ms when the context's config sets none (TanStack's default: 30,000). */
  timeout?: number
  /** The context's memory cap in MB when its config sets none (TanStack's default: 128). */
  memoryLimit?: number
}

/** TanStack AI's IsolateDriver, plus `dispose` for the sandbox the driver made (none when you gave one). */
export interface CordonIsolateDriver extends IsolateDriver {
  dispose(): Promise<void>
}

/**
 * An IsolateDriver for `@tanstack/ai-code-mode` whose contexts are cordon sessions: globals persist
 * from one `execute` to the next, each execution has the context's deadline, and the session's
 * engine its memory cap. Runs go to `sandbox`, or to a sandbox over `backend`, or over the
 * backend `@cordon/select` picks.
 */
export function createCordonIsolateDriver(options: CordonIsolateDriverOptions = {}): CordonIsolateDriver {
  const source = lazySandbox(options, 'the cordon isolate driver')
  return {
    async createContext(config) {
      const sandbox = await source.get()
      const session = await sandbox.createSession({
        tools: toolsOf(config.bindings),
        timeoutMs: config.timeout ?? options.timeout ?? 30_000,
        memoryMb: config.memoryLimit ?? options.memoryLimit ?? 128,
        logArgs: true,
      })
      return contextOver(session)
    },
    dispose: () => source.dispose(),
  }
}

/** Each binding as a cordon tool of the same name (`external_getWeather`), called as TanStack's drivers call it. */
function toolsOf(bindings: Record<string, ToolBinding>): ToolSet {
  const tools: ToolSet = {}
  for (const [name, binding] of Object.entries(bindings)) {
    tools[name] = { description: binding.description, execute: (args: unknown) => binding.execute(args ?? {}) }
  }
  return tools
}

/** What TanStack's drivers answer once a context is disposed. */
const disposedResult = (message = 'Context has been disposed'): ExecutionResult<never> => ({
  success: false,
  error: { name: 'DisposedError', message },
  logs: [],
})

function contextOver(session: Session): IsolateContext {
  let disposed = false
  return {
    async execute<T>(code: string): Promise<ExecutionResult<T>> {
      if (disposed) return disposedResult()
      try {
        return executionResult<T>(await session.run(code))
      } catch (error) {
        // The session ended (disposed, or a run that broke its engine): as TanStack's drivers say it.
        if (isSandboxError(error) && error.code === 'DISPOSED') return disposedResult(error.message)
        throw error
      }
    },
    async dispose() {
      disposed = true
      await session.dispose()
    },
  }
}
