import type { RunOptions, RunResult, Sandbox } from '@cordon/core'
import { expectError, expectHealthy, expectOk, timedRun } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'

const MB = 1024 * 1024

interface Program {
  code: string
  options(n: number): RunOptions
  check(result: RunResult, n: number): void
}

/** Small programs touching every path of a run: globals, logs, tools, errors, timers. */
const PROGRAMS: readonly Program[] = [
  {
    code: 'n * 2',
    options: (n) => ({ globals: { n } }),
    check: (result, n) => expectSameValue(expectOk(result), n * 2, `run ${n}`),
  },
  {
    code: "console.log('n', n)\nawait t.echo({ n, list: [n] })",
    options: (n) => ({ globals: { n }, tools: { 't.echo': { execute: (args: unknown) => args } } }),
    check: (result, n) => expectSameValue(expectOk(result), { n, list: [n] }, `run ${n}`),
  },
  {
    code: "throw new Error('e' + n)",
    options: (n) => ({ globals: { n } }),
    check: (result, n) => {
      if (expectError(result, 'RUNTIME_ERROR').message !== `e${n}`) throw new Error(`run ${n} lost its error message`)
    },
  },
  {
    code: 'await new Promise((resolve) => setTimeout(resolve, 0))\nnew Map([[n, String(n)]])',
    options: (n) => ({ globals: { n } }),
    check: (result, n) => expectSameValue(expectOk(result), new Map([[n, String(n)]]), `run ${n}`),
  },
]

async function runMany(sandbox: Sandbox, from: number, count: number): Promise<void> {
  for (let n = from; n < from + count; n++) {
    const program = PROGRAMS[n % PROGRAMS.length] as Program
    const { result } = await timedRun(sandbox, program.code, program.options(n))
    program.check(result, n)
  }
}

export interface Usage {
  heap: number
  rss: number
}

export type MemoryUsage = () => { heapUsed: number; external: number; rss: number }

export function memoryUsageFunction(): MemoryUsage | undefined {
  const proc = (globalThis as { process?: { memoryUsage?: MemoryUsage } }).process
  return typeof proc?.memoryUsage === 'function' ? () => proc.memoryUsage!() : undefined
}

/** A full garbage collection, by whatever means the runtime offers; undefined when none. */
export async function findGc(): Promise<(() => void) | undefined> {
  const g = globalThis as { gc?: () => void; Bun?: { gc?: (force: boolean) => void } }
  if (typeof g.gc === 'function') return g.gc
  const bunGc = g.Bun?.gc
  if (typeof bunGc === 'function') return () => bunGc(true)
  try {
    const v8 = await import('node:v8')
    const vm = await import('node:vm')
    v8.setFlagsFromString('--expose-gc')
    const gc: unknown = vm.runInNewContext('gc')
    if (typeof gc === 'function') return gc as () => void
  } catch {
    // No way to force a collection here: the check then measures without one.
  }
  return undefined
}

export async function measure(usage: MemoryUsage, gc: (() => void) | undefined): Promise<Usage> {
  for (let i = 0; i < 3; i++) {
    gc?.()
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  const { heapUsed, external, rss } = usage()
  return { heap: heapUsed + external, rss }
}

export const leakCheck: ConformanceCheck = {
  group: 'lifecycle',
  name: 'many sequential runs keep host memory bounded and the sandbox working',
  // A bound on a hang, not a speed test: a run that starts a process of its own takes ~100 ms on a
  // slow VM, and over 250 ms on one loaded by other suites (CI: 200 such runs past 60 s).
  timeoutMs: (options) => 30_000 + options.lifecycleRuns * 400,
  async run({ sandbox, options }) {
    const runs = options.lifecycleRuns
    const warmup = Math.min(100, Math.max(8, Math.floor(runs / 10)))
    await runMany(sandbox, 0, warmup)
    const usage = memoryUsageFunction()
    const gc = await findGc()
    const before = usage === undefined ? undefined : await measure(usage, gc)
    await runMany(sandbox, warmup, runs)
    await expectHealthy(sandbox, `${runs} runs`)
    if (usage === undefined || before === undefined) return
    const after = await measure(usage, gc)
    const slack = options.lifecycleMemorySlackMb
    const heapGrowth = (after.heap - before.heap) / MB
    const rssGrowth = (after.rss - before.rss) / MB
    // RSS moves with the allocator and the engine's page caches, so it gets twice the slack.
    if (heapGrowth > slack || rssGrowth > slack * 2) {
      throw new Error(
        `after ${runs} runs the host grew by ${heapGrowth.toFixed(1)} MB of heap+external (allowed ${slack}) and ` +
          `${rssGrowth.toFixed(1)} MB of RSS (allowed ${slack * 2})${gc === undefined ? ' (no gc() was available)' : ''}`,
      )
    }
  },
}
