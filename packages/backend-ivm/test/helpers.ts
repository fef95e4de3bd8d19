import { createSandbox, type RunResult, type Sandbox } from '@cordon/core'
import { RunStop, type ExecuteRequest } from '@cordon/core/backend'
import { createIvmBackend, type IvmBackendOptions } from '../src/index.js'

export function ivmSandbox(options?: IvmBackendOptions): Sandbox {
  return createSandbox(createIvmBackend(options))
}

export function valueOf(result: RunResult): unknown {
  if (!result.ok) throw new Error(`expected ok, got ${result.error.code}: ${result.error.message}`)
  return result.value
}

export function codeOf(result: RunResult): string {
  return result.ok ? 'OK' : result.error.code
}

export async function timed<T>(action: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now()
  const value = await action()
  return { value, ms: performance.now() - started }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

/**
 * A raw ExecuteRequest for driving the backend without core. `body` becomes the body of the
 * async function core would have made of it; `timeoutMs` sets the limit and the deadline, which
 * a RunStop enforces as core's would (its signal aborts then).
 */
export function rawRequest(
  body: string,
  { timeoutMs = 5_000, ...overrides }: Partial<ExecuteRequest> & { timeoutMs?: number } = {},
): ExecuteRequest {
  const stop = new RunStop(timeoutMs)
  return {
    script: `(async function () {\n${body}\n})`,
    filename: 'guest.js',
    setup: '{"tools":[],"limits":{"maxOutputBytes":1048576,"maxLogEntries":100,"maxLogBytes":10000},"globals":null}',
    tools: [],
    limits: {
      timeoutMs,
      memoryMb: 32,
      maxOutputBytes: 1_048_576,
      maxToolCalls: 100,
      maxConcurrentToolCalls: 16,
      maxLogEntries: 100,
      maxLogBytes: 10_000,
      maxCodeBytes: 1_048_576,
    },
    deadline: stop.deadline,
    signal: stop.signal,
    host: { log: () => undefined, callTool: async () => 'null', callToolSync: () => 'null' },
    ...overrides,
  }
}
