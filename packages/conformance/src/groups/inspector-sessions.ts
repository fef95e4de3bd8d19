/**
 * The debugger and the CPU profile in sessions: a session opened with `inspector` or `cpuProfile`
 * has an engine made for them, each of its runs gets its own socket or profile, and what earlier
 * runs left is there to inspect. A debugger that stays paused still ends the run (and so the
 * session) at its deadline, and the engine it watched goes without harm to the host.
 */
import type { CpuProfile } from '@cordon/core'
import { expectDeadline, expectError, expectHealthy, expectHostError, expectOk } from '../harness/run.js'
import { sessionRunOk, timedSessionRun } from '../harness/session-run.js'
import { startDebuggedInSession, withClient } from '../harness/debugged-run.js'
import { HOT_PROGRAM, hotFunctionFrames } from '../harness/cpu-profile.js'
import { within } from '../runner.js'
import type { ConformanceCheck } from '../types.js'

/** The second run of a session: TypeScript that reads `base`, which the first run declared. */
const SECOND_RUN = ['function add(n: number): number {', '  const sum: number = base + n', '  return sum', '}', 'add(2)'].join('\n')
const SUM_LINE = 3

export const inspectorSessionChecks: readonly ConformanceCheck[] = [
  {
    group: 'inspector',
    name: 'without capabilities.inspector, createSession with inspector or cpuProfile throws UNSUPPORTED',
    requires: { inspector: [false, undefined], sessions: true },
    async run({ sandbox }) {
      await expectHostError(() => sandbox.createSession({ inspector: true }), 'UNSUPPORTED', 'a session with inspector')
      await expectHostError(() => sandbox.createSession({ cpuProfile: true }), 'UNSUPPORTED', 'a session with cpuProfile')
    },
  },
  {
    group: 'inspector',
    name: "a session's runs use inspector and cpuProfile only when the session was opened for them, each run its own",
    requires: { inspector: true, sessions: true },
    timeoutMs: 60_000,
    async run({ sandbox }) {
      const plain = await sandbox.createSession()
      try {
        let ran = false
        const tools = { 'probe.ran': { execute: () => (ran = true) } }
        const refused = await sandbox.createSession({ tools })
        try {
          for (const options of [{ inspector: true }, { cpuProfile: true }]) {
            expectError((await timedSessionRun(refused, 'await probe.ran()\n1', options)).result, 'UNSUPPORTED')
          }
          if (ran) throw new Error('guest code ran in a session not opened for the inspector')
          if (refused.ended !== undefined) throw new Error(`the refused runs ended their session: ${refused.ended.message}`)
          if ((await sessionRunOk(refused, '2')) !== 2) throw new Error('the session did not go on after the refused runs')
        } finally {
          await refused.dispose()
        }
      } finally {
        await plain.dispose()
      }

      const session = await sandbox.createSession({ cpuProfile: { samplingIntervalUs: 200 } })
      try {
        const first = (await timedSessionRun(session, HOT_PROGRAM, { timeoutMs: 20_000 }, 30_000)).result
        if (expectOk(first) !== true) throw new Error('the profiled program did not finish as written')
        if (first.cpuProfile === undefined) throw new Error('a run of a session opened with cpuProfile has no profile')
        const profile = JSON.parse(JSON.stringify(first.cpuProfile)) as CpuProfile
        if (hotFunctionFrames(profile, 'fib').length === 0) {
          // Which frames it has, and how many samples, say what went wrong (it failed once in CI, 2026-12-02).
          const frames = [...new Set(profile.nodes.map((node) => node.callFrame.functionName || '(anonymous)'))].join(', ')
          throw new Error(`the session run's profile has no frame of fib (${profile.samples?.length ?? 0} samples; frames: ${frames})`)
        }
        const off = (await timedSessionRun(session, 'fib(10)', { cpuProfile: false })).result
        if (expectOk(off) !== 55)
          throw new Error(`fib(10) gave ${JSON.stringify(off.ok && off.value)}: the session lost the first run's function`)
        if (off.cpuProfile !== undefined) throw new Error('a run with cpuProfile: false has a profile')
        const again = (await timedSessionRun(session, 'fib(12)')).result
        if (expectOk(again) !== 144 || again.cpuProfile === undefined)
          throw new Error('a later run of the session has no profile of its own')
      } finally {
        await session.dispose()
      }
    },
  },
  {
    group: 'inspector',
    name: 'a CDP client pauses a run of a session by its line and reads what an earlier run of the session left',
    requires: { inspector: true, sessions: true },
    timeoutMs: 60_000,
    async run({ sandbox }) {
      // Every run debugged by default, so the first one turns it off.
      const session = await sandbox.createSession({ inspector: { waitForDebugger: true } })
      try {
        if ((await sessionRunOk(session, 'const base: number = 40\nbase', { inspector: false })) !== 40)
          throw new Error('the first run of the session did not give 40')
        const { endpoint, run } = await startDebuggedInSession(session, SECOND_RUN, {
          inspector: { waitForDebugger: true },
          timeoutMs: 30_000,
        })
        await withClient(endpoint, async (client) => {
          const program = await client.enableAndFindProgram()
          if (!program.source.includes('const sum: number')) throw new Error("the source map does not carry the run's TypeScript")
          await client.setBreakpointAtLine(program, SUM_LINE)
          // waitForDebugger pauses at the first statement first.
          await client.goAndPause()
          const atBreakpoint = client.nextPause()
          await client.send('Debugger.resume')
          const frame = (await atBreakpoint).callFrames[0]!
          const line = program.userLine(frame.location)
          if (line !== SUM_LINE || frame.functionName !== 'add') {
            throw new Error(`paused in ${frame.functionName} at line ${line}, expected add at line ${SUM_LINE}`)
          }
          const sum = await client.localValue(frame, 'sum')
          if (sum !== 42) throw new Error(`the local variable sum reads ${JSON.stringify(sum)}, expected 42`)
          const base = await client.evaluateOnFrame(frame, 'base')
          if (base !== 40) throw new Error(`the earlier run's base reads ${JSON.stringify(base)} in the frame, expected 40`)
          await client.send('Debugger.resume')
          const value = expectOk((await run).result)
          if (value !== 42) throw new Error(`the debugged run ended with ${JSON.stringify(value)}, expected 42`)
          await within(client.closed, 5_000, 'the debugger socket stayed open after the run ended')
        })
        const after = await sessionRunOk(session, 'add(base)', { inspector: false })
        if (after !== 80) throw new Error(`add(base) after the debugged run gave ${JSON.stringify(after)}, expected 80`)
      } finally {
        await session.dispose()
      }
    },
  },
  {
    group: 'inspector',
    name: 'a session run whose debugger stays paused ends at its deadline, ends the session, and the sandbox goes on',
    requires: { inspector: true, sessions: true },
    timeoutMs: 60_000,
    async run({ sandbox, options }) {
      const timeoutMs = 3_000
      const session = await sandbox.createSession({ inspector: { waitForDebugger: true } })
      try {
        const { endpoint, run } = await startDebuggedInSession(session, 'let n = 1\nn += 1\nn', {
          inspector: { waitForDebugger: true },
          timeoutMs,
        })
        await withClient(endpoint, async (client) => {
          await client.enableAndFindProgram()
          await client.goAndPause()
          expectDeadline(await run, 'TIMEOUT', timeoutMs, options.timeoutSlackMs)
          await within(client.closed, 5_000, 'the debugger socket stayed open after the run ended')
        })
        if (session.ended?.code !== 'TIMEOUT') throw new Error(`the session did not end TIMEOUT: ${JSON.stringify(session.ended)}`)
        await expectHostError(() => session.run('1'), 'DISPOSED', 'run() on a session whose debugged run timed out')
      } finally {
        await session.dispose()
      }
      await expectHealthy(sandbox, 'a session whose debugged run timed out')
    },
  },
]
