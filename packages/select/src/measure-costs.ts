import { createSandbox } from '@cordon/core'
import type { BackendFactory } from '@cordon/core/backend'
import { firstLine } from './explain.js'
import type { CandidateCosts } from './report.js'

const WARM_RUNS = 5
const TOOL_CALLS = 50
/** Untimed pause before each warm run: what the next request of a server finds, pools refilled. */
const PAUSE_MS = 20

/**
 * What one backend costs here, measured on a fresh instance from its factory: the first run
 * (engine start included), the median of a few warm runs of a trivial program, and the cost of
 * one tool call (the second run with TOOL_CALLS sequential calls, less a warm run, per call). Each run has
 * the probe's deadline; a failure is reported, not thrown.
 */
export async function measureCosts(
  factory: BackendFactory,
  options: object | undefined,
  timeoutMs: number,
): Promise<CandidateCosts | string> {
  let backend
  try {
    backend = await factory(options)
  } catch (error) {
    return `could not be created again: ${firstLine(error)}`
  }
  const sandbox = createSandbox(backend, { timeoutMs, maxToolCalls: TOOL_CALLS + 1 })
  const timed = async (code: string, tools?: Parameters<typeof sandbox.run>[1]): Promise<number> => {
    const started = performance.now()
    const result = await sandbox.run(code, tools)
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
    return performance.now() - started
  }
  try {
    const firstRunMs = await timed('1 + 2')
    const warm: number[] = []
    for (let i = 0; i < WARM_RUNS; i++) {
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS))
      warm.push(await timed('1 + 2'))
    }
    const runMs = median(warm)
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS))
    const loop = `let s = 0\nfor (let i = 0; i < ${TOOL_CALLS}; i++) s += await cost.echo(i)\ns`
    const tools = { tools: { 'cost.echo': { execute: (i: unknown) => i } } }
    // Once untimed: the first calls of a fresh instance pay for compiling the bridge.
    await timed(loop, tools)
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS))
    const withCalls = await timed(loop, tools)
    const toolCallUs = Math.max(0, ((withCalls - runMs) * 1000) / TOOL_CALLS)
    return { firstRunMs: round(firstRunMs), runMs: round(runMs), toolCallUs: Math.round(toolCallUs) }
  } catch (error) {
    return `a measuring run failed: ${firstLine(error)}`
  } finally {
    await sandbox.dispose().catch(() => undefined)
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[sorted.length >> 1]!
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100
}
