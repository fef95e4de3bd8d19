import { createSandbox, type Sandbox, type ToolSet } from '@cordon/core'
import type { BackendFactory } from '@cordon/core/backend'
import { expectError, expectOk, sleep, timedRun } from '../harness/run.js'

/**
 * What the faults group needs from a backend that runs guests somewhere it can be killed from
 * outside (a child process, a server): which runners exist, and a way to kill one, as an OOM
 * killer, an operator or a crash would. The guest never sees any of this.
 */
export interface FaultHarness {
  /** The runners (e.g. process ids) that hold this process's runs right now. */
  runners(): readonly number[] | Promise<readonly number[]>
  /** Kills one runner abruptly (SIGKILL, a dropped server). */
  kill(runner: number): void | Promise<void>
  /** A factory whose backend places each concurrent run in a runner of its own. */
  oneRunPerRunner: BackendFactory
}

export interface FaultCheck {
  readonly name: string
  run(harness: FaultHarness): Promise<void>
}

/** How soon a run in a killed runner must end. */
const CRASH_REPORT_MS = 1_000
const SPIN = 'for (;;) {}'
const slowAnswer: ToolSet = { 't.later': { execute: () => sleep(1_000).then(() => 'answered') } }

async function withSandbox(harness: FaultHarness, body: (sandbox: Sandbox) => Promise<void>): Promise<void> {
  const sandbox = createSandbox(await harness.oneRunPerRunner())
  try {
    await body(sandbox)
  } finally {
    await sandbox.dispose()
  }
}

/** How long a guest may take to start (its runner booting on a loaded machine). */
const START_WAIT_MS = 10_000

/**
 * A tool the guest calls first, and a promise that resolves when it did: the run is then
 * running in its runner (not waiting for one to boot), so a kill from then on is "mid-run".
 */
function startSignal(name: string): { tools: ToolSet; started: Promise<void> } {
  let signal!: () => void
  const called = new Promise<void>((resolve) => (signal = resolve))
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the guest did not call ${name} within ${START_WAIT_MS / 1000} s`)), START_WAIT_MS)
  })
  const started = Promise.race([called, late]).finally(() => clearTimeout(timer))
  return { tools: { [name]: { execute: () => signal() } }, started }
}

/** The runners that appeared since `known` was taken. */
async function runnersSince(harness: FaultHarness, known: readonly number[]): Promise<number[]> {
  return (await harness.runners()).filter((runner) => !known.includes(runner))
}

/** Polls until the runners include one not in `known`; resolves the new ones. */
async function newRunners(harness: FaultHarness, known: readonly number[], what: string): Promise<number[]> {
  for (let waited = 0; waited < 5_000; waited += 25) {
    const fresh = (await harness.runners()).filter((runner) => !known.includes(runner))
    if (fresh.length > 0) return fresh
    await sleep(25)
  }
  throw new Error(`no runner appeared for ${what} within 5 s`)
}

export const faultChecks: readonly FaultCheck[] = [
  {
    name: 'a runner killed from outside mid-run: that run ends BACKEND_CRASHED within 1 s, and the next run works',
    run: (harness) =>
      withSandbox(harness, async (sandbox) => {
        const before = await harness.runners()
        const { tools, started } = startSignal('t.started')
        const spinning = timedRun(sandbox, `await t.started()\n${SPIN}`, { tools, timeoutMs: 30_000 })
        await started
        // Every runner that appeared since: the run's, and any spare started beside it.
        const targets = await runnersSince(harness, before)
        const killedAt = performance.now()
        for (const runner of targets) await harness.kill(runner)
        const { result } = await spinning
        const late = performance.now() - killedAt
        expectError(result, 'BACKEND_CRASHED')
        if (late > CRASH_REPORT_MS)
          throw new Error(`the run ended ${Math.round(late)} ms after its runner was killed, over ${CRASH_REPORT_MS} ms`)
        if (expectOk((await timedRun(sandbox, '6 * 7')).result) !== 42) throw new Error('the run after the crash gave a wrong value')
      }),
  },
  {
    name: 'a runner that dies takes only its own runs: a run in another runner finishes',
    run: (harness) =>
      withSandbox(harness, async (sandbox) => {
        const before = await harness.runners()
        const spin = startSignal('t.started')
        const spinning = timedRun(sandbox, `await t.started()\n${SPIN}`, { tools: spin.tools, timeoutMs: 10_000 })
        await spin.started
        const spinners = await runnersSince(harness, before)
        const wait = startSignal('t.waiting')
        const waiting = timedRun(sandbox, 'await t.waiting()\nawait t.later()', {
          tools: { ...wait.tools, ...slowAnswer },
          timeoutMs: 30_000,
        })
        await wait.started
        for (const runner of spinners) await harness.kill(runner)
        expectError((await spinning).result, 'BACKEND_CRASHED')
        const waited = expectOk((await waiting).result)
        if (waited !== 'answered') throw new Error(`the run in the other runner gave ${String(waited)}`)
      }),
  },
  {
    name: 'an out-of-memory in one run leaves a run in another runner untouched',
    run: (harness) =>
      withSandbox(harness, async (sandbox) => {
        const before = await harness.runners()
        const waiting = timedRun(sandbox, 'await t.later()', { tools: slowAnswer, timeoutMs: 30_000 })
        await newRunners(harness, before, 'the waiting run')
        const { result } = await timedRun(sandbox, 'new Array(1e9).fill(0)', { memoryMb: 64, timeoutMs: 20_000 })
        expectError(result, 'MEMORY_LIMIT')
        const waited = expectOk((await waiting).result)
        if (waited !== 'answered') throw new Error(`the run in the other runner gave ${String(waited)}`)
        if (expectOk((await timedRun(sandbox, '6 * 7')).result) !== 42)
          throw new Error('the run after the out-of-memory gave a wrong value')
      }),
  },
]
