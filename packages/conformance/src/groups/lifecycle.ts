import type { RunOptions, ToolSet } from '@cordon/core'
import { expectError, expectHealthy, expectHostError, expectOk, sleep, timedRun } from '../harness/run.js'
import { allowedLatenessMs, measureContention } from '../harness/cpu-contention.js'
import type { ConformanceCheck } from '../types.js'
import { leakCheck } from './lifecycle-leaks.js'

export const lifecycleChecks: readonly ConformanceCheck[] = [
  {
    group: 'lifecycle',
    name: 'dispose() is idempotent, also when called twice at once',
    async run({ newSandbox }) {
      const sandbox = await newSandbox()
      await timedRun(sandbox, '1')
      await Promise.all([sandbox.dispose(), sandbox.dispose()])
      await sandbox.dispose()
    },
  },
  {
    group: 'lifecycle',
    name: 'dispose() before any run works',
    async run({ newSandbox }) {
      const sandbox = await newSandbox()
      await sandbox.dispose()
      await sandbox.dispose()
    },
  },
  {
    group: 'lifecycle',
    name: 'backend.prepare(), where a backend has it, may be called at any time, also after dispose(), and never throws',
    async run({ newSandbox }) {
      const sandbox = await newSandbox()
      const { backend } = sandbox
      if (backend.prepare === undefined) return
      if (typeof backend.prepare !== 'function') throw new Error('prepare is not a function')
      backend.prepare()
      backend.prepare()
      expectOk((await timedRun(sandbox, '1 + 2')).result)
      backend.prepare()
      expectOk((await timedRun(sandbox, '2 + 3')).result)
      await sandbox.dispose()
      // The contract also says it starts nothing now (each backend checks its own disposed flag);
      // from outside, what shows is that it does not throw and the sandbox stays disposed.
      backend.prepare()
      await sleep(50)
      await expectHostError(() => sandbox.run('1'), 'DISPOSED', 'run() after dispose()')
    },
  },
  {
    group: 'lifecycle',
    name: 'backend.provenHere(), where a backend has it, answers a string or undefined, before runs and after dispose(), and never throws',
    async run({ newSandbox }) {
      const sandbox = await newSandbox()
      const { backend } = sandbox
      if (backend.provenHere === undefined) return
      if (typeof backend.provenHere !== 'function') throw new Error('provenHere is not a function')
      const answers = [backend.provenHere()]
      // What a selection that trusted it does next: the first run must work.
      expectOk((await timedRun(sandbox, '1 + 2')).result)
      answers.push(backend.provenHere())
      await sandbox.dispose()
      answers.push(backend.provenHere())
      for (const answer of answers) {
        if (answer !== undefined && (typeof answer !== 'string' || answer === '')) {
          throw new Error(`provenHere() answered ${JSON.stringify(answer)}: expected a non-empty string or undefined`)
        }
      }
    },
  },
  {
    group: 'lifecycle',
    name: 'run() after dispose() throws DISPOSED',
    async run({ newSandbox }) {
      const sandbox = await newSandbox()
      await timedRun(sandbox, '1')
      await sandbox.dispose()
      await expectHostError(() => sandbox.run('1'), 'DISPOSED', 'run() after dispose()')
    },
  },
  {
    group: 'lifecycle',
    name: 'runs in flight when dispose() is called resolve ABORTED',
    async run({ newSandbox, options }) {
      const sandbox = await newSandbox()
      const tools: ToolSet = { 't.never': { execute: () => new Promise(() => {}) } }
      const settledAt: number[] = []
      const track = (code: string, runOptions?: RunOptions) =>
        timedRun(sandbox, code, runOptions).then((timed) => (settledAt.push(performance.now()), timed))
      const waiting = [
        track('await new Promise((resolve) => setTimeout(resolve, 60000))'),
        track('await t.never()', { tools }),
        track('setInterval(() => {}, 1000)\nawait new Promise(() => {})'),
      ]
      await sleep(50)
      const disposedAt = performance.now()
      const contended = measureContention()
      const disposal = sandbox.dispose()
      for (const run of waiting) expectError((await run).result, 'ABORTED')
      await disposal
      const latest = Math.max(...settledAt) - disposedAt
      // On a loaded machine, the time the CPU was contended meanwhile is excused (up to twice the slack).
      const allowed = allowedLatenessMs(options.timeoutSlackMs, contended())
      if (latest > allowed) {
        throw new Error(`the runs resolved ${Math.round(latest)} ms after dispose(), over the ${Math.round(allowed)} ms allowed`)
      }
    },
  },
  {
    group: 'lifecycle',
    name: 'a finished run leaves nothing running: its timers never fire later',
    async run({ sandbox }) {
      let calls = 0
      const tools: ToolSet = { 'probe.ran': { execute: () => ++calls } }
      const code = 'setTimeout(() => probe.ran(), 30)\nsetInterval(() => probe.ran(), 10)\nreturn "returned"'
      const { result } = await timedRun(sandbox, code, { tools })
      if (expectOk(result) !== 'returned') throw new Error('the run should return at once')
      await sleep(150)
      if (calls !== 0) throw new Error(`timers of a finished run called a tool ${calls} times afterwards`)
      await expectHealthy(sandbox, 'a run that left timers behind')
    },
  },
  leakCheck,
]
