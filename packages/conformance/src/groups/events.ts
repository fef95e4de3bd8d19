/**
 * Streamed events (`onEvent`): logs and tool calls arrive in the order they happened, each
 * tool-start is paired with one end, the result event is last and is the RunResult, nothing
 * arrives after `run` resolves, and a listener that throws changes nothing.
 */
import type { RunEvent, RunOptions, RunResult, Sandbox, ToolSet } from '@cordon/core'
import { encodeValue } from '@cordon/core/backend'
import { expectError, expectHostError, expectOk, sleep, summarize, timedRun, triedUntilStarted } from '../harness/run.js'
import { timedSessionRun } from '../harness/session-run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'

const utf8 = (text: string) => new TextEncoder().encode(text).length
/** Bytes of a value in the wire format, as the guest's codec writes it (the same codec as the host's). */
const wireBytes = (value: unknown) => utf8(encodeValue(value, Number.MAX_SAFE_INTEGER, 'a test value'))

interface Recorded {
  result: RunResult
  events: RunEvent[]
  /** How many events had arrived when `run` resolved. */
  atResolve: number
}

async function recorded(sandbox: Sandbox, code: string, options: RunOptions = {}): Promise<Recorded> {
  const events: RunEvent[] = []
  const { result } = await timedRun(sandbox, code, { ...options, onEvent: (event) => void events.push(event) })
  return { result, events, atResolve: events.length }
}

/** An event as a short line for comparisons and messages: `log:warn:text`, `start:1:t.echo`, `end:1`, `error:1:threw`, `result`. */
function label(event: RunEvent): string {
  switch (event.type) {
    case 'log':
      return `log:${event.level}:${event.message}`
    case 'tool-start':
      return `start:${event.callId}:${event.tool}`
    case 'tool-end':
      return `end:${event.callId}`
    case 'tool-error':
      return `error:${event.callId}:${event.reason}`
    case 'result':
      return 'result'
  }
}

function expectLabels(events: readonly RunEvent[], expected: readonly string[], what: string): void {
  expectSameValue(events.map(label), expected, what)
}

/**
 * What every run's events must satisfy: the result event once, last, and the RunResult itself;
 * the log events are `result.logs`; each tool-start has exactly one end after it, with its callId;
 * callIds count from 1; times never go back.
 */
function expectWellFormed({ result, events, atResolve }: Recorded): void {
  if (events.length !== atResolve) throw new Error(`${events.length - atResolve} events arrived after run() resolved`)
  const last = events.at(-1)
  if (last?.type !== 'result') throw new Error(`the last event should be the result, got ${summarize(last)}`)
  if (last.result !== result) throw new Error('the result event should carry the RunResult run() resolved with')
  if (events.filter((event) => event.type === 'result').length !== 1) throw new Error('more than one result event')
  const logs = events.flatMap((event) => (event.type === 'log' ? [{ level: event.level, message: event.message }] : []))
  expectSameValue(
    logs,
    result.logs.map((entry) => ({ level: entry.level, message: entry.message })),
    'the log events against result.logs',
  )
  const open = new Map<number, string>()
  let nextId = 1
  let lastAt = 0
  for (const event of events) {
    if (!(event.atMs >= lastAt)) throw new Error(`atMs went back from ${lastAt} to ${event.atMs} at ${label(event)}`)
    lastAt = event.atMs
    if (event.type === 'tool-start') {
      if (event.callId !== nextId++) throw new Error(`callIds should count from 1 in order, got ${event.callId}`)
      open.set(event.callId, event.tool)
    } else if (event.type === 'tool-end' || event.type === 'tool-error') {
      if (open.get(event.callId) !== event.tool) throw new Error(`${label(event)} has no open tool-start for ${event.tool}`)
      open.delete(event.callId)
      if (!(event.durationMs >= 0)) throw new Error(`${label(event)}: durationMs ${event.durationMs}`)
    }
  }
  if (open.size > 0) throw new Error(`calls ${[...open.keys()].join(', ')} started but never ended`)
}

const echo: ToolSet = { 't.echo': { execute: (args: unknown) => args } }

/** The result of a run as the same program gives it every time (no times, no heap figures). */
function comparable(result: RunResult): unknown {
  const { ok, logs, stats } = result
  return {
    ok,
    outcome: result.ok ? result.value : { code: result.error.code, message: result.error.message },
    logs,
    toolCalls: stats.toolCalls,
    logsDropped: stats.logsDropped,
    backend: stats.backend,
  }
}

export const eventsChecks: readonly ConformanceCheck[] = [
  {
    group: 'events',
    name: 'logs and tool calls arrive in the order they happened, and the result event is last and is the RunResult',
    async run({ sandbox }) {
      const code = [
        'console.log("start")',
        'const a = await t.echo({ n: 1 })',
        'console.info("got", a.n)',
        'await new Promise((resolve) => setTimeout(resolve, 5))',
        'console.warn("timer")',
        'const b = await t.echo("b")',
        'console.error(b)',
        'return a.n',
      ].join('\n')
      const run = await recorded(sandbox, code, { tools: echo })
      expectSameValue(expectOk(run.result), 1, 'the value')
      expectWellFormed(run)
      expectLabels(
        run.events,
        [
          'log:log:start',
          'start:1:t.echo',
          'end:1',
          'log:info:got 1',
          'log:warn:timer',
          'start:2:t.echo',
          'end:2',
          'log:error:b',
          'result',
        ],
        'the events',
      )
    },
  },
  {
    group: 'events',
    name: 'concurrent calls: each tool-start is paired with exactly one tool-end by callId, before what the guest does next',
    async run({ sandbox }) {
      const tools: ToolSet = { 't.later': { execute: async (ms: number) => (await sleep(ms), ms) } }
      const run = await recorded(
        sandbox,
        'const all = await Promise.all([40, 1, 20, 5, 30].map((ms) => t.later(ms)))\nconsole.log("all")\nall',
        {
          tools,
        },
      )
      expectSameValue(expectOk(run.result), [40, 1, 20, 5, 30], 'the value')
      expectWellFormed(run)
      const labels = run.events.map(label)
      expectSameValue(
        labels.filter((l) => l.startsWith('start:')),
        [1, 2, 3, 4, 5].map((id) => `start:${id}:t.later`),
        'the starts',
      )
      expectSameValue(labels.slice(-2), ['log:log:all', 'result'], 'the last events')
      const ends = run.events.filter((event) => event.type === 'tool-end')
      if (ends.length !== 5) throw new Error(`expected 5 tool-end events, got ${summarize(labels)}`)
    },
  },
  {
    group: 'events',
    name: 'tool events give sizes in bytes of the wire format, and the arguments and result only with includeToolValuesInEvents',
    async run({ sandbox }) {
      const tools: ToolSet = { 't.reverse': { execute: (list: string[]) => [...list].reverse() } }
      const code = 'await t.reverse(["secret-argument", "é"])'
      const quiet = await recorded(sandbox, code, { tools })
      expectWellFormed(quiet)
      const [start, end] = quiet.events
      if (start?.type !== 'tool-start' || end?.type !== 'tool-end')
        throw new Error(`expected start and end, got ${summarize(quiet.events)}`)
      expectSameValue(
        [start.argsBytes, end.resultBytes],
        [wireBytes(['secret-argument', 'é']), wireBytes(['é', 'secret-argument'])],
        'argsBytes and resultBytes',
      )
      if ('args' in start || 'result' in end) throw new Error('tool events carry the arguments or result without includeToolValuesInEvents')

      const told = await recorded(sandbox, code, { tools, includeToolValuesInEvents: true })
      expectWellFormed(told)
      const [withArgs, withResult] = told.events
      expectSameValue(withArgs?.type === 'tool-start' && withArgs.args, ['secret-argument', 'é'], 'args')
      expectSameValue(withResult?.type === 'tool-end' && withResult.result, ['é', 'secret-argument'], 'result')
    },
  },
  {
    group: 'events',
    name: 'failed tool calls end in tool-error with the reason and the error the guest sees',
    async run({ sandbox }) {
      const tools: ToolSet = {
        't.fail': {
          execute: () => {
            throw new Error('the disk is full')
          },
        },
        't.typed': { inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, execute: () => 1 },
        't.stuck': { timeoutMs: 50, execute: () => new Promise(() => {}) },
      }
      const code = [
        'const caught = []',
        'for (const call of [() => t.fail(), () => t.typed({ n: "x" }), () => t.stuck()]) {',
        '  try { await call() } catch (e) { caught.push(e.message) }',
        '}',
        'console.log(caught.length)',
        'await t.fail()',
      ].join('\n')
      const run = await recorded(sandbox, code, { tools })
      expectError(run.result, 'RUNTIME_ERROR')
      expectWellFormed(run)
      expectLabels(
        run.events,
        [
          'start:1:t.fail',
          'error:1:threw',
          'start:2:t.typed',
          'error:2:refused',
          'start:3:t.stuck',
          'error:3:timeout',
          'log:log:3',
          'start:4:t.fail',
          'error:4:threw',
          'result',
        ],
        'the events',
      )
      const errors = run.events.flatMap((event) => (event.type === 'tool-error' ? [event.error] : []))
      expectSameValue(errors[0], { name: 'Error', message: 'the disk is full' }, 'the thrown error')
      if (errors[1]?.name !== 'TypeError' || !errors[1].message.startsWith('Invalid arguments for tool t.typed')) {
        throw new Error(`the refused call should carry the TypeError the guest sees, got ${summarize(errors[1])}`)
      }
      expectSameValue(errors[2], { name: 'TimeoutError', message: 'tool t.stuck timed out after 50 ms' }, 'the timeout')
    },
  },
  {
    group: 'events',
    name: 'a call pending at TIMEOUT ends (run-ended) before the result, and nothing arrives after run() resolves when it answers later',
    async run({ sandbox }) {
      let answer: ((value: unknown) => void) | undefined
      const tools: ToolSet = { 't.slow': { execute: () => new Promise((resolve) => (answer = resolve)) } }
      // A run that timed out before it called the tool (a slow start) says nothing here: tried again.
      const run = await triedUntilStarted(
        () => recorded(sandbox, 'console.log("calling")\nawait t.slow()', { tools, timeoutMs: 300 }),
        () => answer !== undefined,
      )
      expectError(run.result, 'TIMEOUT')
      expectWellFormed(run)
      expectLabels(run.events, ['log:log:calling', 'start:1:t.slow', 'error:1:run-ended', 'result'], 'the events')
      // Whoever stopped the run (the host's timer or the backend's own deadline), the call ended for the deadline.
      const ended = run.events.find((event) => event.type === 'tool-error')
      if (ended?.type === 'tool-error' && !run.result.ok && ended.error.message !== run.result.error.message) {
        throw new Error(`the pending call ended with ${JSON.stringify(ended.error.message)}, not the deadline's message`)
      }
      if (answer === undefined) throw new Error('the tool was never called')
      answer('too late')
      await sleep(100)
      if (run.events.length !== run.atResolve)
        throw new Error(`events arrived after run() resolved: ${summarize(run.events.slice(run.atResolve))}`)
    },
  },
  {
    group: 'events',
    name: 'a listener that throws on every event changes nothing in the result, and still gets every event',
    async run({ sandbox }) {
      const code = 'console.log("a")\nconst v = await t.echo({ n: 1 })\nconsole.log("b")\ntry { await t.echo(() => 1) } catch {}\nv'
      const { result: quiet } = await timedRun(sandbox, code, { tools: echo })
      const seen: string[] = []
      const { result: loud } = await timedRun(sandbox, code, {
        tools: echo,
        onEvent: (event) => {
          seen.push(event.type)
          throw new Error('the listener broke')
        },
      })
      expectSameValue(comparable(loud), comparable(quiet), 'the result with a throwing listener')
      expectSameValue(seen, ['log', 'tool-start', 'tool-end', 'log', 'result'], 'the events the throwing listener got')
      const { result: failing } = await timedRun(sandbox, 'console.log("x")\nthrow new TypeError("bad")', {
        onEvent: () => Promise.reject(new Error('the async listener broke')),
      })
      expectError(failing, 'RUNTIME_ERROR')
    },
  },
  {
    group: 'events',
    name: 'a failed run delivers the logs written before the failure, then its result',
    async run({ sandbox }) {
      const thrown = await recorded(sandbox, 'console.log("before")\nawait null\nconsole.warn("still")\nthrow new Error("x")')
      expectError(thrown.result, 'RUNTIME_ERROR')
      expectWellFormed(thrown)
      expectLabels(thrown.events, ['log:log:before', 'log:warn:still', 'result'], 'the events of a run that throws')

      const syntax = await recorded(sandbox, 'const = 1')
      expectError(syntax.result, 'SYNTAX_ERROR')
      expectWellFormed(syntax)
      expectLabels(syntax.events, ['result'], 'the events of a syntax error')
    },
  },
  {
    group: 'events',
    name: 'log events are the entries kept: cut at maxLogBytes, none past maxLogEntries (counted in stats.logsDropped)',
    async run({ sandbox }) {
      const run = await recorded(sandbox, 'console.log("x".repeat(300))\nfor (let i = 0; i < 10; i++) console.log(i)', {
        maxLogEntries: 3,
        maxLogBytes: 100,
      })
      expectOk(run.result)
      expectWellFormed(run)
      expectSameValue(run.result.stats.logsDropped, 8, 'stats.logsDropped')
      expectLabels(run.events, [`log:log:${'x'.repeat(100)}…[truncated]`, 'log:log:0', 'log:log:1', 'result'], 'the events')
    },
  },
  {
    group: 'events',
    name: 'a log flood stopped at TIMEOUT: the log events are exactly result.logs, and the result is last',
    async run({ sandbox }) {
      // A run that timed out before its first statement (a slow start) says nothing here: tried again.
      const run = await triedUntilStarted(
        () => recorded(sandbox, 'let i = 0\nfor (;;) console.log(i++)', { timeoutMs: 300 }),
        (attempt) => attempt.result.logs.length > 0,
      )
      expectError(run.result, 'TIMEOUT')
      expectWellFormed(run)
      if (run.events.length < 2) throw new Error(`expected log events before the result, got ${summarize(run.events)}`)
    },
  },
  {
    group: 'events',
    name: 'session runs deliver their own events, with the listener of the session or of the run',
    requires: { sessions: true },
    async run({ sandbox }) {
      const sessionEvents: RunEvent[] = []
      const runEvents: RunEvent[] = []
      const session = await sandbox.createSession({ tools: echo, onEvent: (event) => void sessionEvents.push(event) })
      try {
        const first = await timedSessionRun(session, 'const kept = await t.echo("a")\nconsole.log(kept)')
        expectOk(first.result)
        expectWellFormed({ result: first.result, events: sessionEvents, atResolve: sessionEvents.length })
        expectLabels(sessionEvents, ['start:1:t.echo', 'end:1', 'log:log:a', 'result'], 'the first run (session listener)')
        const second = await timedSessionRun(session, 'console.log(kept + "b")\nawait t.echo(2)', {
          onEvent: (event) => void runEvents.push(event),
        })
        expectOk(second.result)
        expectWellFormed({ result: second.result, events: runEvents, atResolve: runEvents.length })
        expectLabels(runEvents, ['log:log:ab', 'start:1:t.echo', 'end:1', 'result'], 'the second run (its own listener)')
        if (sessionEvents.length !== 4) throw new Error("the session's listener got events of a run that had its own")
      } finally {
        await session.dispose()
      }
    },
  },
  {
    group: 'events',
    name: 'onEvent that is not a function, or includeToolValuesInEvents that is not a boolean, is INVALID_OPTIONS',
    async run({ sandbox }) {
      for (const onEvent of ['log', 42, {}, null]) {
        await expectHostError(
          () => sandbox.run('1', { onEvent } as unknown as RunOptions),
          'INVALID_OPTIONS',
          `onEvent ${summarize(onEvent)}`,
        )
      }
      await expectHostError(
        () => sandbox.run('1', { includeToolValuesInEvents: 'yes' } as unknown as RunOptions),
        'INVALID_OPTIONS',
        'includeToolValuesInEvents "yes"',
      )
    },
  },
]
