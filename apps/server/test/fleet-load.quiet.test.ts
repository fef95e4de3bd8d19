import { createRemoteBackend } from '@cordon/backend-remote'
import { createSandbox, type RunResult } from '@cordon/core'
import { afterAll, expect, it } from 'vitest'
import { FLEET_TOKEN, startFleet } from './support/fleet.js'

// 1,000 runs of five kinds through HAProxy while servers are killed, drained and restarted:
// every run ends, with its own code or BACKEND_CRASHED (its server was killed under it), and no
// tool call is ever made twice (a run is never sent twice). Quiet: servers restarting on a
// machine loaded by other suites could take longer than a run's 15 s to accept a connection.
const fleet = await startFleet({ serverArgs: ['--max-runs', '16'] })
afterAll(() => fleet.stop())

const RUNS = 1_000
const IN_FLIGHT = 16

interface Kind {
  code: string
  program: (i: number) => string
  options?: { timeoutMs?: number; memoryMb?: number }
}
const KINDS: Kind[] = [
  { code: 'OK', program: (i) => `console.log('run', ${i}); (await t.mark({ i: ${i} })) * 2` },
  {
    code: 'OK',
    program: (i) => `await t.mark({ i: ${i} }); let s = 0; for (let k = 0; k < 5; k++) s += await t.echo(k); s + ${i} * 2 - 10`,
  },
  { code: 'RUNTIME_ERROR', program: (i) => `await t.mark({ i: ${i} }); throw new TypeError('bad ' + ${i})` },
  { code: 'TIMEOUT', program: (i) => `await t.mark({ i: ${i} }); for (;;) {}`, options: { timeoutMs: 150 } },
  {
    code: 'MEMORY_LIMIT',
    program: (i) => `await t.mark({ i: ${i} }); const a = []; for (;;) a.push(new Array(1e5).fill(${i}))`,
    options: { memoryMb: 32 },
  },
]
// Memory runs are the heaviest: one in twenty.
const kindOf = (i: number): Kind => (i % 20 === 4 ? KINDS[4]! : KINDS[i % 4]!)

it(
  '1,000 mixed runs through HAProxy with servers killed, drained and restarted: none lost, none duplicated',
  { timeout: 180_000 },
  async () => {
    const marks = new Map<number, number>()
    const tools = {
      't.mark': {
        execute: ({ i }: { i: number }) => {
          marks.set(i, (marks.get(i) ?? 0) + 1)
          return i
        },
      },
      't.echo': { execute: (k: number) => k },
    }
    const sandbox = createSandbox(await createRemoteBackend({ url: fleet.url, token: FLEET_TOKEN, connectTimeoutMs: 15_000 }))
    const results: (RunResult | undefined)[] = new Array<RunResult | undefined>(RUNS)
    let next = 0
    let done = 0
    const chaos: Promise<unknown>[] = []
    const drainExit: (number | null)[] = []
    const onProgress = () => {
      done++
      if (done === 150) chaos.push(fleet.kill(0).then(() => fleet.restart(0)))
      if (done === 400) chaos.push(fleet.terminate(1).then((code) => (drainExit.push(code), fleet.restart(1))))
      if (done === 650) chaos.push(fleet.kill(2).then(() => fleet.restart(2)))
    }
    const worker = async () => {
      while (next < RUNS) {
        const i = next++
        const kind = kindOf(i)
        results[i] = await sandbox.run(kind.program(i), { tools, ...kind.options })
        onProgress()
      }
    }
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
    await Promise.all(chaos)
    await sandbox.dispose()

    const crashed: number[] = []
    const wrong: string[] = []
    results.forEach((result, i) => {
      const kind = kindOf(i)
      if (result === undefined) return wrong.push(`run ${i} has no result`)
      const code = result.ok ? 'OK' : result.error.code
      if (code === 'BACKEND_CRASHED') return crashed.push(i)
      if (code !== kind.code) return wrong.push(`run ${i}: ${code} (${result.ok ? '' : result.error.message}), expected ${kind.code}`)
      // A run may reach its deadline before its first call (a 150 ms budget on a loaded machine).
      const expected = code === 'TIMEOUT' ? [0, 1] : [1]
      if (!expected.includes(marks.get(i) ?? 0)) wrong.push(`run ${i} ended ${code} with t.mark called ${marks.get(i) ?? 0} times`)
      if (result.ok && result.value !== i * 2) wrong.push(`run ${i} gave ${String(result.value)}`)
    })
    expect(wrong).toEqual([])
    // Never twice, even for the runs whose server died under them.
    expect([...marks.values()].filter((count) => count > 1)).toEqual([])
    // Only the two killed servers' runs in flight: at most all of them, twice.
    expect(crashed.length).toBeLessThanOrEqual(2 * IN_FLIGHT)
    expect(crashed.length, 'the kills hit no run in flight').toBeGreaterThan(0)
    // The drained server finished its runs and exited cleanly.
    expect(drainExit).toEqual([0])
    console.log(`fleet load: ${RUNS} runs, ${crashed.length} BACKEND_CRASHED by the two kills, none lost, none duplicated`)
  },
)
