import { expectHealthy } from '../harness/run.js'
import { sessionRunOk } from '../harness/session-run.js'
import type { ConformanceCheck } from '../types.js'
import { findGc, measure, memoryUsageFunction } from './lifecycle-leaks.js'

const MB = 1024 * 1024

/** Opening, using and disposing many sessions must give back what each one took. */
export const sessionChurnCheck: ConformanceCheck = {
  group: 'sessions',
  name: 'sessions opened, used and disposed one after another keep host memory bounded',
  requires: { sessions: true },
  timeoutMs: (options) => 30_000 + options.sessionChurn * 200,
  async run({ newSandbox, options }) {
    const sandbox = await newSandbox()
    const count = options.sessionChurn
    const cycle = async (n: number): Promise<void> => {
      const session = await sandbox.createSession({ globals: { n } })
      await sessionRunOk(session, 'const twice = n * 2\nconsole.log(twice)')
      const value = await sessionRunOk(session, 'twice + 1')
      if (value !== n * 2 + 1) throw new Error(`session ${n} returned ${String(value)}`)
      await session.dispose()
    }
    const warmup = Math.min(50, Math.max(5, Math.floor(count / 10)))
    for (let n = 0; n < warmup; n++) await cycle(n)
    const usage = memoryUsageFunction()
    const gc = await findGc()
    const before = usage === undefined ? undefined : await measure(usage, gc)
    for (let n = warmup; n < warmup + count; n++) await cycle(n)
    if (sandbox.sessionCount !== 0) throw new Error(`${sandbox.sessionCount} sessions still listed after all were disposed`)
    await expectHealthy(sandbox, `${count} sessions`)
    if (usage === undefined || before === undefined) return
    const after = await measure(usage, gc)
    const slack = options.lifecycleMemorySlackMb
    const heapGrowth = (after.heap - before.heap) / MB
    const rssGrowth = (after.rss - before.rss) / MB
    if (heapGrowth > slack || rssGrowth > slack * 2) {
      throw new Error(
        `after ${count} sessions the host grew by ${heapGrowth.toFixed(1)} MB of heap+external (allowed ${slack}) and ` +
          `${rssGrowth.toFixed(1)} MB of RSS (allowed ${slack * 2})`,
      )
    }
  },
}
