/**
 * Durable runs: a tool pauses the run (`ctx.interrupt`, `needsApproval`), the result carries a
 * signed continuation, and `sandbox.resume` re-runs the program in a fresh guest, answering the
 * recorded calls from the ledger without calling the tools again. Nothing here depends on the
 * engine but the guest runtime's seeded clock: every backend must pass every check.
 */
import { isSandboxError, type ToolSet } from '@cordon/core'
import { expectError, expectHostError, expectOk, sleep, summarize, timedRun } from '../harness/run.js'
import type { ConformanceCheck } from '../types.js'
import { countedTools, durableSandbox, expectEqual, expectPaused } from './durable-harness.js'

const check = (name: string, run: ConformanceCheck['run'], timeoutMs?: number): ConformanceCheck => ({
  group: 'durable',
  name,
  run,
  ...(timeoutMs === undefined ? {} : { timeoutMs }),
})

/** Reads, logs, pauses, then reads again: the shape most checks resume. */
const READ_ASK_READ = `
  const a = await t.read(1)
  console.log('before', a)
  const answer = await ask.human('deploy?')
  console.log('after', answer)
  return [a, answer, await t.read(2)]`

export const durableChecks: readonly ConformanceCheck[] = [
  check('pause: ctx.interrupt ends the run at once with INTERRUPTED, its payload, the logs so far and a continuation', async (ctx) => {
    const sandbox = await durableSandbox(ctx)
    const { tools, calls } = countedTools()
    const code = `setTimeout(() => t.read('late'), 1000)\n${READ_ASK_READ}`
    const { result } = await timedRun(sandbox, code, { tools })
    const paused = expectPaused(result, 'a run whose tool interrupts')
    expectEqual(
      paused.interrupt,
      { reason: 'interrupt', tool: 'ask.human', args: 'deploy?', payload: { question: 'deploy?' } },
      'interrupt',
    )
    expectEqual(paused.logs, [{ level: 'log', message: 'before read:1' }], 'logs so far')
    if (paused.stats.toolCalls !== 2) throw new Error(`stats.toolCalls should count 2 calls, got ${paused.stats.toolCalls}`)
    // The guest was stopped: the timer it set before pausing never calls its tool.
    await sleep(1_300)
    expectEqual(calls, { 't.read': 1, 'ask.human': 1 }, 'host calls after the pause')
  }),

  check('resume with an answer: the paused call resolves with it, recorded calls are not made again, the rest runs live', async (ctx) => {
    const sandbox = await durableSandbox(ctx)
    const { tools, calls } = countedTools()
    const paused = expectPaused((await timedRun(sandbox, READ_ASK_READ, { tools })).result, 'the first run')
    const resumed = await sandbox.resume(paused.continuation, { answer: { approved: true }, tools })
    expectEqual(expectOk(resumed), ['read:1', { approved: true }, 'read:2'], 'the resumed value')
    expectEqual(
      resumed.logs,
      [
        { level: 'log', message: 'before read:1' },
        { level: 'log', message: 'after { approved: true }' },
      ],
      'the resumed logs (the replay logs again)',
    )
    expectEqual(calls, { 't.read': 2, 'ask.human': 1 }, 'host calls over the pause and the resume')
    if (resumed.stats.toolCalls !== 3) throw new Error(`stats.toolCalls should count replayed calls too: 3, got ${resumed.stats.toolCalls}`)
  }),

  check('resume with a rejection: the paused call throws a catchable Error with the message', async (ctx) => {
    const sandbox = await durableSandbox(ctx)
    const { tools, calls } = countedTools()
    const code = `try { await ask.human('drop table?') } catch (e) { return [e instanceof Error, e.message, await t.read(3)] }`
    const paused = expectPaused((await timedRun(sandbox, code, { tools })).result, 'the first run')
    const resumed = await sandbox.resume(paused.continuation, { reject: 'denied by ada', tools })
    expectEqual(expectOk(resumed), [true, 'denied by ada', 'read:3'], 'the resumed value')
    expectEqual(calls, { 'ask.human': 1, 't.read': 1 }, 'host calls')
  }),

  check('replay answers results and errors from the ledger, each resume of one continuation alike, calling no tool again', async (ctx) => {
    const sandbox = await durableSandbox(ctx)
    const { tools, calls } = countedTools()
    const code = `
      const out = []
      for (let i = 0; i < 5; i++) out.push(await t.read(i))
      const both = await Promise.all([t.read('x'), t.read('y')])
      let failed; try { await t.fail() } catch (e) { failed = e.message }
      out.push(both, failed, await ask.human('ok?'))
      return out`
    const paused = expectPaused((await timedRun(sandbox, code, { tools })).result, 'the first run')
    expectEqual(calls, { 't.read': 7, 't.fail': 1, 'ask.human': 1 }, 'host calls of the first run')
    const expected = ['read:0', 'read:1', 'read:2', 'read:3', 'read:4', ['read:x', 'read:y'], 'the host said no', 'yes']
    for (let i = 0; i < 2; i++) {
      expectEqual(expectOk(await sandbox.resume(paused.continuation, { answer: 'yes', tools })), expected, `resume #${i + 1}`)
    }
    expectEqual(calls, { 't.read': 7, 't.fail': 1, 'ask.human': 1 }, 'host calls after two resumes')
  }),

  check(
    'concurrent calls replay in the order their answers first arrived: Promise.race between tools picks the same winner',
    async (ctx) => {
      const sandbox = await durableSandbox(ctx)
      const { tools, calls } = countedTools()
      const code = `
      const winner = await Promise.race([t.slow(1).then(() => 'slow'), t.read(2).then(() => 'fast')])
      const seen = await t.read(winner)
      return [winner, seen, await ask.human('?')]`
      const paused = expectPaused((await timedRun(sandbox, code, { tools })).result, 'the first run')
      // The slow call was still running at the pause: it finished, was recorded, and answers after the others.
      expectEqual(expectOk(await sandbox.resume(paused.continuation, { answer: 'ok', tools })), ['fast', 'read:fast', 'ok'], 'resumed')
      expectEqual(calls, { 't.slow': 1, 't.read': 2, 'ask.human': 1 }, 'host calls')
    },
  ),

  check('divergence: other arguments at a recorded call end the resume REPLAY_DIVERGED, calling no tool', async (ctx) => {
    const sandbox = await durableSandbox(ctx)
    const { tools, total } = countedTools()
    const code = `const a = await t.read(who); const b = await ask.human('?'); return await t.read(b)`
    const paused = expectPaused((await timedRun(sandbox, code, { tools, globals: { who: 'ada' } })).result, 'the first run')
    const before = total()
    const resumed = await sandbox.resume(paused.continuation, { answer: 1, tools, globals: { who: 'bob' } })
    expectError(resumed, 'REPLAY_DIVERGED')
    if (total() !== before) throw new Error(`a diverging resume called ${total() - before} host tools`)
  }),

  check('divergence: recorded calls in another order end the resume REPLAY_DIVERGED, calling no tool', async (ctx) => {
    const sandbox = await durableSandbox(ctx)
    const { tools, total } = countedTools()
    const code = `
      if (flip === 'skip') return 'ended early'
      if (flip) { await t.fail().catch(() => 0); await t.read(1) } else { await t.read(1); await t.fail().catch(() => 0) }
      return await ask.human('?')`
    const paused = expectPaused((await timedRun(sandbox, code, { tools, globals: { flip: false } })).result, 'the first run')
    const before = total()
    expectError(await sandbox.resume(paused.continuation, { answer: 1, tools, globals: { flip: true } }), 'REPLAY_DIVERGED')
    // A program that ends before it reaches the paused call diverges too.
    const ended = await sandbox.resume(paused.continuation, { answer: 1, tools, globals: { flip: 'skip' } })
    if (!ended.ok) expectError(ended, 'REPLAY_DIVERGED')
    else throw new Error(`a resume that skipped recorded calls should diverge, got ${summarize(ended)}`)
    if (total() !== before) throw new Error(`a diverging resume called ${total() - before} host tools`)
  }),

  check('other code, other tools or a tampered continuation are refused INVALID_CONTINUATION before anything runs', async (ctx) => {
    const sandbox = await durableSandbox(ctx)
    const { tools, total } = countedTools()
    const paused = expectPaused((await timedRun(sandbox, READ_ASK_READ, { tools })).result, 'the first run')
    const before = total()
    const token = paused.continuation
    await expectHostError(
      () => sandbox.resume(token, { answer: 1, tools, code: READ_ASK_READ + ';' }),
      'INVALID_CONTINUATION',
      'other code',
    )
    const renamed: ToolSet = { ...tools, 't.write': { execute: () => 0 } }
    await expectHostError(() => sandbox.resume(token, { answer: 1, tools: renamed }), 'INVALID_CONTINUATION', 'another tool set')
    // Every single-character change anywhere in the token, one per region, is refused.
    for (const at of [3, Math.floor(token.length / 2), token.length - 2]) {
      const swapped = token[at] === 'A' ? 'B' : 'A'
      const tampered = token.slice(0, at) + swapped + token.slice(at + 1)
      await expectHostError(() => sandbox.resume(tampered, { answer: 1, tools }), 'INVALID_CONTINUATION', `a change at ${at}`)
    }
    const other = await ctx.newSandbox({ durable: { keys: ['another-host-key-that-is-32-bytes-long!'] } })
    await expectHostError(() => other.resume(token, { answer: 1, tools }), 'INVALID_CONTINUATION', 'a foreign key')
    if (total() !== before) throw new Error(`refused resumes called ${total() - before} host tools`)
  }),

  check('Date and Math.random: the same values under replay, and time moves with timers only', async (ctx) => {
    const sandbox = await durableSandbox(ctx)
    const { tools } = countedTools()
    const code = `
      const t0 = Date.now()
      const early = [t0, new Date().getTime(), Math.random(), Math.random()]
      await new Promise((resolve) => setTimeout(resolve, 40))
      const waited = Date.now() - t0
      await ask.human('?')
      return { early, waited, late: [Date.now() - t0, Math.random(), new Date() instanceof Date, typeof Date()] }`
    const first = expectPaused((await timedRun(sandbox, `${code}`, { tools })).result, 'the first run')
    const a = expectOk(await sandbox.resume(first.continuation, { answer: 1, tools })) as Record<string, unknown>
    const b = expectOk(await sandbox.resume(first.continuation, { answer: 1, tools })) as Record<string, unknown>
    expectEqual(a, b, 'two resumes of one continuation')
    expectEqual(a.waited, 40, 'Date.now() after a 40 ms timer')
    const early = a.early as number[]
    if (early[0] !== early[1] || early[2] === early[3])
      throw new Error(`Date.now and new Date() should agree, random should vary: ${JSON.stringify(early)}`)
    expectEqual((a.late as unknown[]).slice(2), [true, 'string'], 'new Date() is a Date, Date() a string')
    // Another run gets other seeds.
    const second = expectPaused((await timedRun(sandbox, code, { tools })).result, 'another run')
    const c = expectOk(await sandbox.resume(second.continuation, { answer: 1, tools })) as Record<string, unknown>
    if ((c.early as number[])[2] === early[2]) throw new Error('two runs drew the same Math.random()')
  }),

  check(
    'limits carry across a pause: the recorded calls count toward maxToolCalls, and the time used toward timeoutMs',
    async (ctx) => {
      const sandbox = await durableSandbox(ctx)
      const { tools } = countedTools()
      const calls = `await t.read(1); await t.read(2); await ask.human('?'); return await t.read(3)`
      const paused = expectPaused((await timedRun(sandbox, calls, { tools, maxToolCalls: 3 })).result, 'the first run')
      expectError(await sandbox.resume(paused.continuation, { answer: 1, tools }), 'TOOL_CALL_LIMIT')
      const slow: ToolSet = { ...tools, 't.wait': { execute: () => new Promise((resolve) => setTimeout(() => resolve('waited'), 700)) } }
      const timed = `await t.wait(); await ask.human('?'); return await t.wait()`
      const pausedLate = expectPaused((await timedRun(sandbox, timed, { tools: slow, timeoutMs: 1_200 })).result, 'the slow run')
      // 700 ms were spent before the pause; 700 more do not fit in the 1,200 ms budget.
      const resumed = await sandbox.resume(pausedLate.continuation, { answer: 1, tools: slow })
      expectError(resumed, 'TIMEOUT')
    },
    20_000,
  ),

  check('needsApproval pauses before the tool runs; an answer approves it, a rejection never runs it', async (ctx) => {
    const sandbox = await durableSandbox(ctx)
    let deleted = 0
    const ran = () => deleted
    const tools: ToolSet = {
      'git.deleteBranch': {
        needsApproval: true,
        execute: (args: { name: string }) => (deleted++, `deleted ${args.name}`),
      },
    }
    const code = `try { return await git.deleteBranch({ name: 'main' }) } catch (e) { return 'refused: ' + e.message }`
    const paused = expectPaused((await timedRun(sandbox, code, { tools })).result, 'the first run')
    expectEqual(paused.interrupt, { reason: 'approval', tool: 'git.deleteBranch', args: { name: 'main' } }, 'interrupt')
    if (ran() !== 0) throw new Error('the tool ran before it was approved')
    expectEqual(expectOk(await sandbox.resume(paused.continuation, { reject: 'no', tools })), 'refused: no', 'rejected')
    if (ran() !== 0) throw new Error('a rejected call ran the tool')
    expectEqual(expectOk(await sandbox.resume(paused.continuation, { answer: true, tools })), 'deleted main', 'approved')
    if (ran() !== 1) throw new Error(`an approved call should run the tool once, ran ${ran()}`)
  }),

  check('a call still running when the run pauses finishes, is recorded, and is not made again on resume', async (ctx) => {
    const sandbox = await durableSandbox(ctx)
    const { tools, calls } = countedTools()
    let slowCalls = 0
    const withSlow: ToolSet = {
      ...tools,
      't.slow': {
        execute: async (_args, toolCtx) => {
          slowCalls++
          await new Promise((resolve) => setTimeout(resolve, 100))
          return toolCtx.signal.aborted ? 'aborted' : 'finished'
        },
      },
    }
    const paused = expectPaused(
      (await timedRun(sandbox, `return await Promise.all([t.slow(), ask.human('?')])`, { tools: withSlow })).result,
      'run',
    )
    const resumed = await sandbox.resume(paused.continuation, { answer: 'ok', tools: withSlow })
    expectEqual(expectOk(resumed), ['finished', 'ok'], 'the resumed value')
    if (slowCalls !== 1) throw new Error(`the running call was made ${slowCalls} times`)
    expectEqual(calls, { 'ask.human': 1 }, 'other host calls')
  }),

  check('an encrypted continuation resumes, and its text shows neither the code nor tool results', async (ctx) => {
    const sandbox = await durableSandbox(ctx, { encrypt: true })
    const { tools } = countedTools()
    const paused = expectPaused(
      (await timedRun(sandbox, `const s = await t.read('SECRET'); await ask.human(1); return s`, { tools })).result,
      'run',
    )
    const body = paused.continuation.split('.')[1] ?? ''
    const text = new TextDecoder('latin1').decode(
      Uint8Array.from(atob(body.replaceAll('-', '+').replaceAll('_', '/')), (c) => c.charCodeAt(0)),
    )
    if (text.includes('SECRET') || text.includes('t.read')) throw new Error('the encrypted continuation shows the code or a result')
    expectEqual(expectOk(await sandbox.resume(paused.continuation, { answer: 1, tools })), 'read:SECRET', 'the resumed value')
    await sandbox.resume('c1.e30.AAAA', { answer: 1, tools }).then(
      (r) => {
        throw new Error(`a made-up continuation resolved ${summarize(r)}`)
      },
      (error: unknown) => {
        if (!isSandboxError(error, 'INVALID_CONTINUATION')) throw error
      },
    )
  }),
]
