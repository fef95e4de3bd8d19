/**
 * Admission control (`createSandbox(backend, { maxConcurrentRuns, maxQueueMs })`): a run that
 * finds every place taken ends with BUSY without reaching the backend, or waits its turn for at
 * most `maxQueueMs`; its signal and deadline end the wait; places come back on every end.
 */
import { createSandbox } from '@cordon/core'
import type { RunEvent, RunResult, ToolSet } from '@cordon/core'
import { heldRun, HELD_PROGRAM, startHeld } from '../harness/held-run.js'
import { expectError, expectHostError, expectLimitName, expectOk, runOk, timedRun } from '../harness/run.js'
import { sessionRunOk, timedSessionRun } from '../harness/session-run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'

const LONG_QUEUE_MS = 10_000

/** A tool that records that the guest got to call it: a refused run never does. */
function markingTools(marks: string[], name: string): ToolSet {
  return { 'mark.here': { execute: () => void marks.push(name) } }
}

function expectRefusedUnstarted(result: RunResult, code: 'BUSY' | 'ABORTED' | 'TIMEOUT', marks: readonly string[]): void {
  expectError(result, code)
  expectSameValue(marks, [], 'tool calls of the refused run')
  expectSameValue(result.logs, [], 'logs of the refused run')
  expectSameValue(result.stats.toolCalls, 0, 'stats.toolCalls of the refused run')
}

export const admissionChecks: readonly ConformanceCheck[] = [
  {
    group: 'admission',
    name: 'admission: with maxConcurrentRuns in flight a new run ends at once with BUSY, unstarted, its result the only event; the place comes back when a run ends',
    async run({ newSandbox }) {
      const sandbox = await newSandbox({ maxConcurrentRuns: 1 })
      const held = await startHeld(sandbox)
      const marks: string[] = []
      const events: RunEvent[] = []
      const refused = await sandbox.run('console.log("ran"); await mark.here(); 1', {
        tools: markingTools(marks, 'refused'),
        onEvent: (event) => void events.push(event),
      })
      expectRefusedUnstarted(refused, 'BUSY', marks)
      expectSameValue(
        events.map((event) => event.type),
        ['result'],
        'the events of the refused run',
      )
      held.release()
      expectSameValue(expectOk(await held.result), 'released', 'the held run')
      expectSameValue(await runOk(sandbox, 'await mark.here(); 2', { tools: markingTools(marks, 'after') }), 2, 'the next run')
      expectSameValue(marks, ['after'], 'tool calls')
    },
  },
  {
    group: 'admission',
    name: 'admission: with maxQueueMs runs wait for a place and start in arrival order',
    async run({ newSandbox }) {
      const sandbox = await newSandbox({ maxConcurrentRuns: 1, maxQueueMs: LONG_QUEUE_MS })
      const held = await startHeld(sandbox)
      const order: string[] = []
      const tools = (name: string): ToolSet => ({ 'mark.here': { execute: () => void order.push(name) } })
      const second = timedRun(sandbox, 'await mark.here(); "second"', { tools: tools('second') })
      const third = timedRun(sandbox, 'await mark.here(); "third"', { tools: tools('third') })
      held.release()
      expectSameValue(expectOk((await second).result), 'second', 'the first queued run')
      expectSameValue(expectOk((await third).result), 'third', 'the second queued run')
      expectSameValue(expectOk(await held.result), 'released', 'the held run')
      expectSameValue(order, ['second', 'third'], 'the order the queued runs started in')
    },
  },
  {
    group: 'admission',
    name: 'admission: a run that waits longer than maxQueueMs ends with BUSY, unstarted',
    async run({ newSandbox }) {
      const sandbox = await newSandbox({ maxConcurrentRuns: 1, maxQueueMs: 30 })
      const held = await startHeld(sandbox)
      const marks: string[] = []
      const { result } = await timedRun(sandbox, 'await mark.here(); 1', { tools: markingTools(marks, 'late') })
      expectRefusedUnstarted(result, 'BUSY', marks)
      held.release()
      expectOk(await held.result)
    },
  },
  {
    group: 'admission',
    name: 'admission: abort (ABORTED) and the deadline (TIMEOUT) end a waiting run and free its place in the queue',
    async run({ newSandbox }) {
      const sandbox = await newSandbox({ maxConcurrentRuns: 1, maxQueueMs: LONG_QUEUE_MS })
      const held = await startHeld(sandbox)
      const marks: string[] = []
      const controller = new AbortController()
      const aborted = timedRun(sandbox, 'await mark.here(); 1', { tools: markingTools(marks, 'aborted'), signal: controller.signal })
      const timedOut = timedRun(sandbox, 'await mark.here(); 2', { tools: markingTools(marks, 'timed out'), timeoutMs: 100 })
      const last = timedRun(sandbox, 'await mark.here(); 3', { tools: markingTools(marks, 'last') })
      controller.abort()
      expectRefusedUnstarted((await aborted).result, 'ABORTED', marks)
      const timeout = (await timedOut).result
      expectRefusedUnstarted(timeout, 'TIMEOUT', marks)
      if (!timeout.ok) expectLimitName(timeout.error, 'timeoutMs', 100)
      held.release()
      expectOk(await held.result)
      expectSameValue(expectOk((await last).result), 3, 'the run queued behind them')
      expectSameValue(marks, ['last'], 'tool calls')
    },
  },
  {
    group: 'admission',
    name: 'admission: runs that fail, are aborted mid-run, or throw INVALID_OPTIONS give their place back',
    async run({ newSandbox }) {
      const sandbox = await newSandbox({ maxConcurrentRuns: 1 })
      expectError((await timedRun(sandbox, 'throw new Error("no")')).result, 'RUNTIME_ERROR')
      expectError((await timedRun(sandbox, 'while (true) {}', { timeoutMs: 100 })).result, 'TIMEOUT')
      const controller = new AbortController()
      const held = heldRun()
      const aborted = timedRun(sandbox, HELD_PROGRAM, { tools: held.tools, signal: controller.signal })
      await held.started
      controller.abort()
      expectError((await aborted).result, 'ABORTED')
      await expectHostError(() => sandbox.run('1', { globals: { 'not an identifier': 1 } }), 'INVALID_OPTIONS', 'a bad globals name')
      expectSameValue(await runOk(sandbox, '40 + 2'), 42, 'a run after all of them')
    },
  },
  {
    group: 'admission',
    name: 'admission: dispose ends runs waiting for a place with ABORTED',
    async run({ newSandbox }) {
      const sandbox = await newSandbox({ maxConcurrentRuns: 1, maxQueueMs: LONG_QUEUE_MS })
      const held = await startHeld(sandbox)
      const marks: string[] = []
      const waiting = timedRun(sandbox, 'await mark.here(); 1', { tools: markingTools(marks, 'waiting') })
      await sandbox.dispose()
      expectRefusedUnstarted((await waiting).result, 'ABORTED', marks)
      expectError(await held.result, 'ABORTED')
    },
  },
  {
    group: 'admission',
    name: 'admission: session runs count among the runs in flight, both ways',
    requires: { sessions: true },
    async run({ newSandbox }) {
      const sandbox = await newSandbox({ maxConcurrentRuns: 1 })
      const held = heldRun()
      const session = await sandbox.createSession({ tools: held.tools })
      const sessionRun = timedSessionRun(session, HELD_PROGRAM)
      await held.started
      expectError((await timedRun(sandbox, '1')).result, 'BUSY')
      held.release()
      expectOk((await sessionRun).result)
      const sandboxHeld = await startHeld(sandbox)
      expectError((await timedSessionRun(session, '2')).result, 'BUSY')
      sandboxHeld.release()
      expectOk(await sandboxHeld.result)
      expectSameValue(await sessionRunOk(session, '3'), 3, 'a session run after a BUSY one (the session stays open)')
    },
  },
  {
    group: 'admission',
    name: 'admission: maxConcurrentRuns and maxQueueMs are checked (INVALID_OPTIONS) and belong to the sandbox, not to a run',
    async run({ backend, sandbox }) {
      const bad: Record<string, unknown>[] = [
        { maxConcurrentRuns: 0 },
        { maxConcurrentRuns: 1.5 },
        { maxConcurrentRuns: '2' },
        { maxConcurrentRuns: Number.POSITIVE_INFINITY },
        { maxConcurrentRuns: 2, maxQueueMs: -1 },
        { maxConcurrentRuns: 2, maxQueueMs: 0.5 },
        { maxQueueMs: 100 },
      ]
      for (const defaults of bad) {
        await expectHostError(
          () => createSandbox(backend, defaults),
          'INVALID_OPTIONS',
          `createSandbox(backend, ${JSON.stringify(defaults)})`,
        )
      }
      await expectHostError(
        () => sandbox.run('1', { maxConcurrentRuns: 1 } as Record<string, unknown>),
        'INVALID_OPTIONS',
        'maxConcurrentRuns as a run option',
      )
    },
  },
]
