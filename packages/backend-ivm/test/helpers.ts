import { createSandbox, type RunResult, type Sandbox } from '@cordon/core'
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
