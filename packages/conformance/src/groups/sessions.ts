import type { Session, ToolSet } from '@cordon/core'
import { expectDeadline, expectError, expectHealthy, expectHostError, logMessages, runOk, sleep, summarize } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import { sessionRunOk, timedSessionRun } from '../harness/session-run.js'
import type { ConformanceCheck } from '../types.js'
import { sessionChurnCheck } from './sessions-churn.js'

const needsSessions = { sessions: true } as const

const grant = (): ToolSet => ({
  'a.x': { execute: () => 'x' },
  'a.y': { execute: () => 'y' },
  'b.z': { execute: () => 'z' },
})

function expectEnded(session: Session, code: string): void {
  if (session.ended?.code !== code) throw new Error(`session.ended should have code ${code}, got ${summarize(session.ended)}`)
}

export const sessionsChecks: readonly ConformanceCheck[] = [
  {
    group: 'sessions',
    name: 'top-level declarations and globals persist from one run to the next',
    requires: needsSessions,
    async run({ sandbox }) {
      const session = await sandbox.createSession()
      const first = [
        'const a = 1',
        'let b = [1]',
        'function f(x) { return x * 2 }',
        'class C { v() { return 3 } }',
        'var { d, e: [h], ...rest } = { d: 4, e: [5], r: 6 }',
        "globalThis.g = 'G'",
        'b.push(2)',
      ].join('\n')
      await sessionRunOk(session, first)
      const value = await sessionRunOk(session, '[a, b, f(2), new C().v(), g, d, h, rest]')
      expectSameValue(value, [1, [1, 2], 4, 3, 'G', 4, 5, { r: 6 }], 'the second run reading the first run’s declarations')
      // A later declaration of the same name replaces it, as in a notebook.
      await sessionRunOk(session, 'const a = 10')
      expectSameValue(await sessionRunOk(session, 'a + f(a)'), 30, 'a redeclared value')
    },
  },
  {
    group: 'sessions',
    name: 'a top-level binding is kept as it ends, not as declared: later changes in its run and in later runs are what the next run sees',
    requires: needsSessions,
    async run({ sandbox }) {
      const session = await sandbox.createSession()
      await sessionRunOk(session, 'let total = 0\nfor (const x of [1, 2, 3]) total += x\nfunction read() { return total }\nconst fixed = 1')
      expectSameValue(await sessionRunOk(session, '[total, read()]'), [6, 6], 'the binding after its run changed it')
      await sessionRunOk(session, 'total = 10')
      expectSameValue(await sessionRunOk(session, '[total, read()]'), [10, 10], 'the binding a later run assigned')
      const assigned = await sessionRunOk(session, 'try { fixed = 2; return "assigned" } catch (e) { return e instanceof TypeError }')
      expectSameValue(assigned, true, 'assigning a const of an earlier run (a TypeError)')
      expectSameValue(await sessionRunOk(session, 'fixed'), 1, 'the const')
      await session.dispose()
    },
  },
  {
    group: 'sessions',
    name: 'a lone function declaration defines a helper for later runs (it is not called)',
    requires: needsSessions,
    async run({ sandbox }) {
      let calls = 0
      const tools: ToolSet = { 'probe.called': { execute: () => void calls++ } }
      const session = await sandbox.createSession({ tools })
      const defined = await sessionRunOk(session, 'async function helper(n) {\n  await probe.called()\n  return n + 1\n}')
      if (defined !== undefined || calls !== 0)
        throw new Error(`defining helper() returned ${summarize(defined)} after ${calls} tool calls`)
      expectSameValue(await sessionRunOk(session, 'await helper(41)'), 42, 'the helper called in the next run')
      if ((calls as number) !== 1) throw new Error(`the helper's tool was called ${calls} times, expected 1`)
      await session.dispose()
    },
  },
  {
    group: 'sessions',
    name: 'state never crosses sessions or reaches one-off runs',
    requires: needsSessions,
    async run({ sandbox }) {
      const [one, two] = await Promise.all([sandbox.createSession(), sandbox.createSession()])
      await sessionRunOk(one, "const secret = 's1'\nglobalThis.marker = 1\nObject.prototype.polluted = true")
      const probe = '[typeof secret, typeof marker, typeof ({}).polluted]'
      expectSameValue(await sessionRunOk(two, probe), ['undefined', 'undefined', 'undefined'], 'another session')
      expectSameValue(await runOk(sandbox, probe), ['undefined', 'undefined', 'undefined'], 'a one-off run')
      expectSameValue(await sessionRunOk(one, probe), ['string', 'number', 'boolean'], 'the session itself')
      await Promise.all([one.dispose(), two.dispose()])
    },
  },
  {
    group: 'sessions',
    name: 'a thrown error or a syntax error keeps the session and what ran before the throw',
    requires: needsSessions,
    async run({ sandbox }) {
      const session = await sandbox.createSession()
      const thrown = await timedSessionRun(session, "const kept = 5\nthrow new TypeError('boom')")
      const error = expectError(thrown.result, 'RUNTIME_ERROR')
      if (error.name !== 'TypeError' || error.message !== 'boom' || error.line !== 2) throw new Error(`wrong error: ${summarize(error)}`)
      expectError((await timedSessionRun(session, 'const = 1')).result, 'SYNTAX_ERROR')
      expectSameValue(await sessionRunOk(session, 'kept'), 5, 'a value declared before the throw')
      if (session.ended !== undefined) throw new Error(`the session ended: ${summarize(session.ended)}`)
      await session.dispose()
    },
  },
  {
    group: 'sessions',
    name: 'logs, tool calls and their limits count per run',
    requires: needsSessions,
    async run({ sandbox }) {
      const session = await sandbox.createSession({ maxLogEntries: 2, maxToolCalls: 2, tools: { 't.one': { execute: () => 1 } } })
      for (let i = 0; i < 3; i++) {
        const { result } = await timedSessionRun(
          session,
          "console.log('a'); console.log('b'); console.log('c');\n(await t.one()) + (await t.one())",
        )
        expectSameValue(expectOkValue(result), 2, `run ${i}`)
        expectSameValue(logMessages(result), ['a', 'b'], `run ${i} logs`)
        if (result.stats.logsDropped !== 1 || result.stats.toolCalls !== 2) throw new Error(`run ${i} stats: ${summarize(result.stats)}`)
      }
      await session.dispose()
    },
  },
  {
    group: 'sessions',
    name: 'tools: the session gets its grant; a run may narrow it by name or namespace, never widen it',
    requires: needsSessions,
    async run({ sandbox }) {
      const session = await sandbox.createSession({ tools: grant() })
      expectSameValue(
        await sessionRunOk(session, 'globalThis.savedZ = b.z;\n[await a.x(), await a.y(), await b.z()]'),
        ['x', 'y', 'z'],
        'the full grant',
      )
      const narrowed = await sessionRunOk(
        session,
        "let stale\ntry { await savedZ(); stale = 'answered' } catch (e) { stale = 'refused' };\n[await a.x(), typeof a.y, typeof b?.z, stale]",
        { tools: ['a.x'] },
      )
      expectSameValue(narrowed, ['x', 'undefined', 'undefined', 'refused'], 'a run narrowed to a.x (a saved b.z must be refused)')
      expectSameValue(
        await sessionRunOk(session, '[await a.x(), await a.y(), typeof b?.z]', { tools: ['a'] }),
        ['x', 'y', 'undefined'],
        'a run narrowed to namespace a',
      )
      await expectHostError(() => session.run('1', { tools: ['c.w'] }), 'INVALID_OPTIONS', 'a tool outside the grant')
      await expectHostError(
        () => session.run('1', { tools: { 'c.w': { execute: () => 1 } } } as never),
        'INVALID_OPTIONS',
        'a run passing its own tool set',
      )
      expectSameValue(await sessionRunOk(session, 'await b.z()'), 'z', 'the grant again when a run does not narrow')
      await session.dispose()
    },
  },
  {
    group: 'sessions',
    name: 'globals: the session’s before its first run only; a run’s before that run',
    requires: needsSessions,
    async run({ sandbox }) {
      const session = await sandbox.createSession({ globals: { count: 1 } })
      expectSameValue(await sessionRunOk(session, 'count++\ncount'), 2, 'first run')
      expectSameValue(
        await sessionRunOk(session, '[count, extra]', { globals: { extra: 'e' } }),
        [2, 'e'],
        'second run with its own globals',
      )
      await session.dispose()
    },
  },
  {
    group: 'sessions',
    name: 'timers and tool calls of a finished run never fire into the next one',
    requires: needsSessions,
    async run({ sandbox }) {
      const tools: ToolSet = { 't.slow': { execute: () => sleep(100).then(() => 'slow') } }
      const session = await sandbox.createSession({ tools })
      await sessionRunOk(
        session,
        "setTimeout(() => { globalThis.fromTimer = true; console.log('late log') }, 30)\nt.slow().then(() => { globalThis.fromTool = true })\n1",
      )
      const { result } = await timedSessionRun(
        session,
        'await new Promise((resolve) => setTimeout(resolve, 250));\n[typeof fromTimer, typeof fromTool]',
        {
          tools: [],
        },
      )
      expectSameValue(expectOkValue(result), ['undefined', 'undefined'], 'what the first run left behind')
      if (result.logs.length !== 0) throw new Error(`the next run got logs from the first: ${summarize(result.logs)}`)
      await session.dispose()
    },
  },
  {
    group: 'sessions',
    name: 'runs of one session are queued in order; each deadline starts with its run',
    requires: needsSessions,
    async run({ sandbox }) {
      const session = await sandbox.createSession({ timeoutMs: 2_000 })
      const runs = [
        timedSessionRun(session, "await new Promise((resolve) => setTimeout(resolve, 300))\nglobalThis.order = ['first']\n1"),
        timedSessionRun(session, "order.push('second')\n2", { timeoutMs: 250 }),
        timedSessionRun(session, "order.join(',')"),
      ]
      const [first, second, third] = await Promise.all(runs)
      expectSameValue(expectOkValue(first!.result), 1, 'first run')
      expectSameValue(expectOkValue(second!.result), 2, 'second run (queued longer than its own timeout, which starts when it starts)')
      expectSameValue(expectOkValue(third!.result), 'first,second', 'the order the runs saw')
      await session.dispose()
    },
  },
  {
    group: 'sessions',
    name: 'a timeout ends the session: queued runs resolve ABORTED, later runs throw DISPOSED, the sandbox is fine',
    requires: needsSessions,
    async run({ sandbox, options }) {
      const session = await sandbox.createSession()
      await sessionRunOk(session, 'const state = 1')
      const timingOut = timedSessionRun(session, 'while (true) {}', { timeoutMs: 300 })
      const queued = timedSessionRun(session, 'state')
      expectDeadline(await timingOut, 'TIMEOUT', 300, options.timeoutSlackMs)
      expectError((await queued).result, 'ABORTED')
      expectEnded(session, 'TIMEOUT')
      await expectHostError(() => session.run('state'), 'DISPOSED', 'run() on a session that timed out')
      await expectHostError(() => session.memoryUsage(), 'DISPOSED', 'memoryUsage() on a session that timed out')
      if (sandbox.sessions().some((info) => info.id === session.id)) throw new Error('the ended session is still listed')
      await expectHealthy(sandbox, 'a session timed out')
    },
  },
  {
    group: 'sessions',
    name: 'an abort ends the session promptly with ABORTED; a tool-call limit ends it with TOOL_CALL_LIMIT',
    requires: needsSessions,
    async run({ sandbox, options }) {
      const session = await sandbox.createSession()
      const controller = new AbortController()
      setTimeout(() => controller.abort(), 200)
      const aborted = await timedSessionRun(session, 'await new Promise((resolve) => setTimeout(resolve, 60000))', {
        signal: controller.signal,
      })
      expectDeadline(aborted, 'ABORTED', 200, options.timeoutSlackMs)
      expectEnded(session, 'ABORTED')
      const limited = await sandbox.createSession({ maxToolCalls: 1, tools: { 't.one': { execute: () => 1 } } })
      expectError((await timedSessionRun(limited, 'await t.one()\nawait t.one()')).result, 'TOOL_CALL_LIMIT')
      expectEnded(limited, 'TOOL_CALL_LIMIT')
      await expectHealthy(sandbox, 'sessions ended by an abort and a tool-call limit')
    },
  },
  {
    group: 'sessions',
    name: 'memoryMb caps the whole session: state kept across runs counts, and the host survives',
    requires: { sessions: true, memoryLimit: true },
    timeoutMs: 60_000,
    async run({ sandbox }) {
      const session = await sandbox.createSession({ memoryMb: 48 })
      // Filled natively (not a callback per element): an interpreter (QuickJS) on a loaded
      // machine took over a minute for the mapped version.
      const grow = 'globalThis.keep ??= []\nkeep.push(new Array(1_000_000).fill(keep.length + 0.5))\nkeep.length'
      let limited = false
      for (let run = 0; run < 20 && !limited; run++) {
        const { result } = await timedSessionRun(session, grow, undefined, 30_000)
        if (!result.ok) {
          expectError(result, 'MEMORY_LIMIT')
          limited = true
        }
      }
      if (!limited) throw new Error('20 runs kept about 8 MB each in a 48 MB session without a MEMORY_LIMIT')
      expectEnded(session, 'MEMORY_LIMIT')
      await expectHealthy(sandbox, 'a session ran out of memory')
    },
  },
  {
    group: 'sessions',
    name: 'sessions(), sessionCount, memoryUsage(), dispose() and disposeAll()',
    requires: needsSessions,
    async run({ newSandbox, backend }) {
      const sandbox = await newSandbox()
      const before = Date.now()
      // Without a memory cap, the session's memoryMb is the default the sandbox resolves.
      const memoryMb = backend.capabilities.memoryLimit ? 64 : 128
      const [one, two, three] = await Promise.all([
        sandbox.createSession(backend.capabilities.memoryLimit ? { id: 'plugin-a', memoryMb } : { id: 'plugin-a' }),
        sandbox.createSession(),
        sandbox.createSession(),
      ])
      await expectHostError(() => sandbox.createSession({ id: 'plugin-a' }), 'INVALID_OPTIONS', 'a second session with the same id')
      await expectHostError(() => sandbox.createSession({ timeout: 5 } as never), 'INVALID_OPTIONS', 'an unknown session option')
      await expectHostError(() => one.run('1', { memoryMb: 8 } as never), 'INVALID_OPTIONS', 'memoryMb in a session run')
      await sessionRunOk(one, '1')
      await sessionRunOk(one, '2')
      const usage = await one.memoryUsage()
      if (!(Number.isFinite(usage.heapBytes) && usage.heapBytes >= 0) || usage.memoryMb !== memoryMb)
        throw new Error(`memoryUsage() gave ${summarize(usage)}`)
      const listed = sandbox.sessions()
      if (sandbox.sessionCount !== 3 || listed.length !== 3)
        throw new Error(`3 sessions open, sessions() lists ${listed.length}, sessionCount ${sandbox.sessionCount}`)
      const info = listed.find((entry) => entry.id === 'plugin-a')
      if (info === undefined || info.runs !== 2 || info.memoryMb !== memoryMb || info.backend !== sandbox.backend.name || info.busy) {
        throw new Error(`sessions() describes plugin-a as ${summarize(info)}`)
      }
      if (!(info.createdAt instanceof Date) || info.createdAt.getTime() < before - 1000)
        throw new Error(`createdAt is ${summarize(info.createdAt)}`)
      await two.dispose()
      await two.dispose()
      if ((sandbox.sessionCount as number) !== 2) throw new Error(`after one dispose(), sessionCount is ${sandbox.sessionCount}`)
      expectEnded(two, 'DISPOSED')
      await expectHostError(() => two.run('1'), 'DISPOSED', 'run() on a disposed session')
      await sandbox.disposeAll()
      if ((sandbox.sessionCount as number) !== 0) throw new Error(`after disposeAll(), sessionCount is ${sandbox.sessionCount}`)
      await expectHostError(() => three.run('1'), 'DISPOSED', 'run() after disposeAll()')
      await expectHealthy(sandbox, 'disposeAll()')
      const last = await sandbox.createSession()
      const inFlight = timedSessionRun(last, 'await new Promise((resolve) => setTimeout(resolve, 60000))')
      await sleep(50)
      await sandbox.dispose()
      expectError((await inFlight).result, 'ABORTED')
      expectEnded(last, 'DISPOSED')
    },
  },
  {
    group: 'sessions',
    name: 'concurrent sessions are independent: one timing out does not disturb the other',
    requires: needsSessions,
    async run({ sandbox }) {
      const [busy, calm] = await Promise.all([sandbox.createSession(), sandbox.createSession()])
      await Promise.all([sessionRunOk(busy, 'let n = 0'), sessionRunOk(calm, 'let n = 100')])
      const step = 'for (let i = 0; i < 5; i++) { n++; await new Promise((resolve) => setTimeout(resolve, 5)) }\nn'
      const results = await Promise.all([
        sessionRunOk(busy, step),
        sessionRunOk(calm, step),
        timedSessionRun(busy, 'while (true) {}', { timeoutMs: 200 }),
        sessionRunOk(calm, step),
      ])
      expectSameValue([results[0], results[1], results[3]], [5, 105, 110], 'each session’s own counter')
      expectError(results[2].result, 'TIMEOUT')
      expectSameValue(await sessionRunOk(calm, 'n'), 110, 'the calm session after the other timed out')
      await calm.dispose()
    },
  },
  sessionChurnCheck,
]

function expectOkValue(result: Awaited<ReturnType<typeof timedSessionRun>>['result']): unknown {
  if (!result.ok) throw new Error(`expected an ok result, got ${summarize(result)}`)
  return result.value
}
