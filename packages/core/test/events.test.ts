import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createSandbox, isSandboxError } from '../src/index.js'
import type { RunEvent, RunOptions, RunResult, ToolSet } from '../src/index.js'
import { encodeValue } from '../src/backend/index.js'
import { createVmBackend } from '../../conformance/test/fakes/vm-backend.js'

const sandbox = createSandbox(createVmBackend())
afterAll(() => sandbox.dispose())

const utf8 = (text: string) => new TextEncoder().encode(text).length
const wireBytes = (value: unknown) => utf8(encodeValue(value, 1e9, 'test'))

/** Runs with a recording listener; also records what had arrived when `run` resolved. */
async function recorded(code: string, options: RunOptions = {}) {
  const events: RunEvent[] = []
  const result = await sandbox.run(code, { ...options, onEvent: (event) => void events.push(event) })
  return { result, events, atResolve: events.length }
}

/** Events without their times, for exact comparison. */
function shapes(events: readonly RunEvent[]): unknown[] {
  return events.map((event) => {
    const { atMs: _atMs, ...rest } = event
    if ('durationMs' in rest) return { ...rest, durationMs: 'ms' }
    if (rest.type === 'result') return { type: 'result' }
    return rest
  })
}

/** Lets every pending callback, timer and microtask run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20))

const echo: ToolSet = { 't.echo': { execute: (args: unknown) => args } }

describe('onEvent', () => {
  it('delivers logs and tool calls in the order they happened, then the result, which is the resolved RunResult', async () => {
    const code = [
      'console.log("one")',
      'const a = await t.echo({ n: 1 })',
      'console.warn("two", a.n)',
      'const b = await t.echo([2])',
      'console.error("three")',
      'return b',
    ].join('\n')
    const { result, events, atResolve } = await recorded(code, { tools: echo })
    expect(result.ok).toBe(true)
    expect(events).toHaveLength(atResolve)
    expect(shapes(events)).toEqual([
      { type: 'log', level: 'log', message: 'one' },
      { type: 'tool-start', callId: 1, tool: 't.echo', argsBytes: wireBytes({ n: 1 }) },
      { type: 'tool-end', callId: 1, tool: 't.echo', durationMs: 'ms', resultBytes: wireBytes({ n: 1 }) },
      { type: 'log', level: 'warn', message: 'two 1' },
      { type: 'tool-start', callId: 2, tool: 't.echo', argsBytes: wireBytes([2]) },
      { type: 'tool-end', callId: 2, tool: 't.echo', durationMs: 'ms', resultBytes: wireBytes([2]) },
      { type: 'log', level: 'error', message: 'three' },
      { type: 'result' },
    ])
    const last = events.at(-1)!
    expect(last.type === 'result' && last.result).toBe(result)
    // The log events are the kept logs, one for one.
    expect(events.flatMap((e) => (e.type === 'log' ? [{ level: e.level, message: e.message }] : []))).toEqual(result.logs)
    const times = events.map((event) => event.atMs)
    expect([...times].sort((x, y) => x - y)).toEqual(times)
    for (const event of events) if ('durationMs' in event) expect(event.durationMs).toBeGreaterThanOrEqual(0)
  })

  it('pairs every start with one end by callId, also for concurrent calls', async () => {
    const tools: ToolSet = {
      't.later': { execute: async (n: number) => (await new Promise((resolve) => setTimeout(resolve, n)), n) },
    }
    const { result, events } = await recorded('await Promise.all([t.later(30), t.later(1), t.later(15)])', { tools })
    expect(result.ok && result.value).toEqual([30, 1, 15])
    const starts = events.filter((e) => e.type === 'tool-start')
    const ends = events.filter((e) => e.type === 'tool-end')
    expect(starts.map((e) => e.callId)).toEqual([1, 2, 3])
    expect(ends.map((e) => e.callId).sort()).toEqual([1, 2, 3])
    for (const end of ends) {
      expect(events.indexOf(end)).toBeGreaterThan(events.findIndex((e) => e.type === 'tool-start' && e.callId === end.callId))
    }
  })

  it('carries no arguments or results unless includeToolValuesInEvents is set, and then copies of them', async () => {
    const plain = await recorded('await t.echo({ secret: "s3cret" })', { tools: echo })
    expect(JSON.stringify(plain.events.slice(0, -1))).not.toContain('s3cret')

    const args = { when: new Date(0), ids: new Set([1, 2]), big: 2n ** 70n }
    let seen: unknown
    const tools: ToolSet = {
      't.take': {
        execute: (received: unknown) => {
          seen = received
          return new Map([['k', 1]])
        },
      },
    }
    const { events } = await recorded('await t.take({ when: new Date(0), ids: new Set([1, 2]), big: 2n ** 70n })', {
      tools,
      includeToolValuesInEvents: true,
    })
    const start = events.find((e) => e.type === 'tool-start')!
    const end = events.find((e) => e.type === 'tool-end')!
    expect(start.type === 'tool-start' && start.args).toEqual(args)
    expect(start.type === 'tool-start' && start.args).not.toBe(seen)
    expect(end.type === 'tool-end' && end.result).toEqual(new Map([['k', 1]]))
  })

  it('reports failed calls with the reason and the error the guest sees', async () => {
    const tools: ToolSet = {
      't.fail': {
        execute: () => {
          throw new Error('no access')
        },
      },
      't.typed': { inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, execute: () => 1 },
      't.fn': { execute: () => () => 1 },
      't.stuck': { timeoutMs: 20, execute: () => new Promise(() => {}) },
    }
    const code = [
      'const out = []',
      'for (const call of [() => t.fail(), () => t.typed({ n: "x" }), () => t.fn(), () => t.stuck()]) {',
      '  try { await call() } catch (e) { out.push(e.name) }',
      '}',
      'return out',
    ].join('\n')
    const { result, events } = await recorded(code, { tools })
    expect(result.ok && result.value).toEqual(['Error', 'TypeError', 'Error', 'TimeoutError'])
    const errors = events.filter((e) => e.type === 'tool-error')
    expect(errors.map((e) => [e.callId, e.tool, e.reason, e.error.name])).toEqual([
      [1, 't.fail', 'threw', 'Error'],
      [2, 't.typed', 'refused', 'TypeError'],
      [3, 't.fn', 'invalid-result', 'Error'],
      [4, 't.stuck', 'timeout', 'TimeoutError'],
    ])
    expect(errors[0]!.error.message).toBe('no access')
    expect(errors[1]!.error.message).toMatch(/^Invalid arguments for tool t\.typed/)
    expect(errors[3]!.error.message).toBe('tool t.stuck timed out after 20 ms')
    expect(events.filter((e) => e.type === 'tool-end')).toEqual([])
  })

  it('reports the call over maxToolCalls as refused, before the TOOL_CALL_LIMIT result', async () => {
    const { result, events } = await recorded('for (;;) await t.echo(1)', { tools: echo, maxToolCalls: 2 })
    expect(!result.ok && result.error.code).toBe('TOOL_CALL_LIMIT')
    expect(shapes(events).map((e) => (e as { type: string; reason?: string }).reason ?? (e as { type: string }).type)).toEqual([
      'tool-start',
      'tool-end',
      'tool-start',
      'tool-end',
      'tool-start',
      'refused',
      'result',
    ])
  })

  it('ends a call still pending at a TIMEOUT before the result, and sends nothing when it answers later', async () => {
    let answer!: (value: unknown) => void
    const tools: ToolSet = { 't.slow': { execute: () => new Promise((resolve) => (answer = resolve)) } }
    const { result, events, atResolve } = await recorded('console.log("waiting"); await t.slow()', { tools, timeoutMs: 50 })
    expect(!result.ok && result.error.code).toBe('TIMEOUT')
    expect(shapes(events)).toEqual([
      { type: 'log', level: 'log', message: 'waiting' },
      { type: 'tool-start', callId: 1, tool: 't.slow', argsBytes: wireBytes(undefined) },
      {
        type: 'tool-error',
        callId: 1,
        tool: 't.slow',
        durationMs: 'ms',
        reason: 'run-ended',
        error: { name: 'Error', message: 'the run took longer than timeoutMs (50 ms)' },
      },
      { type: 'result' },
    ])
    answer('late')
    await settle()
    expect(events).toHaveLength(atResolve)
  })

  it('ends a call the guest never awaited when the run finishes', async () => {
    const tools: ToolSet = { 't.slow': { execute: () => new Promise(() => {}) } }
    const { result, events } = await recorded('void t.slow(); "done"', { tools })
    expect(result.ok && result.value).toBe('done')
    const error = events.find((e) => e.type === 'tool-error')
    expect(error).toMatchObject({ reason: 'run-ended', error: { message: 'the run finished before the call answered' } })
    expect(events.at(-1)!.type).toBe('result')
  })

  it('gives sync tools the same events', async () => {
    const tools: ToolSet = { 't.now': { sync: true, execute: () => 7 }, 't.bad': { sync: true, execute: () => Promise.resolve(1) } }
    const { events } = await recorded('const n = t.now(); try { t.bad() } catch {}; n', { tools })
    expect(shapes(events)).toEqual([
      { type: 'tool-start', callId: 1, tool: 't.now', argsBytes: wireBytes(undefined) },
      { type: 'tool-end', callId: 1, tool: 't.now', durationMs: 'ms', resultBytes: wireBytes(7) },
      { type: 'tool-start', callId: 2, tool: 't.bad', argsBytes: wireBytes(undefined) },
      {
        type: 'tool-error',
        callId: 2,
        tool: 't.bad',
        durationMs: 'ms',
        reason: 'invalid-result',
        error: { name: 'Error', message: 'sync tool t.bad returned a promise; make execute synchronous or drop sync: true' },
      },
      { type: 'result' },
    ])
  })

  it('delivers log entries as kept: cut ones with the marker, none past maxLogEntries (counted in logsDropped)', async () => {
    const { result, events } = await recorded('console.log("x".repeat(50)); for (let i = 0; i < 4; i++) console.log(i)', {
      maxLogEntries: 2,
      maxLogBytes: 16,
    })
    const logs = events.filter((e) => e.type === 'log')
    expect(logs.map((e) => e.message)).toEqual([`${'x'.repeat(16)}…[truncated]`, '0'])
    expect(result.stats.logsDropped).toBe(3)
  })

  it('delivers only the result for a run that never started the program', async () => {
    const syntax = await recorded('const = 1')
    expect(syntax.events.map((e) => e.type)).toEqual(['result'])
    const tooBig = await recorded('1 + 1', { maxCodeBytes: 2 })
    expect(tooBig.events.map((e) => e.type)).toEqual(['result'])
    const aborted = await recorded('1', { signal: AbortSignal.abort() })
    expect(aborted.events).toEqual([{ type: 'result', atMs: expect.any(Number) as number, result: aborted.result }])
  })
})

describe('a misbehaving listener', () => {
  const warnings: Error[] = []
  const onWarning = (warning: Error) => warnings.push(warning)
  process.on('warning', onWarning)
  afterAll(() => void process.off('warning', onWarning))
  afterEach(() => void warnings.splice(0))

  const code = 'console.log("a"); const v = await t.echo({ n: 1 }); console.log("b"); try { await t.echo(() => 1) } catch {}; v'

  /** The result without the times that differ from run to run. */
  const comparable = (result: RunResult) => ({ ...result, stats: { ...result.stats, wallMs: 0 } })

  it('cannot change the result by throwing, gets every event anyway, and is reported once as a warning', async () => {
    const quiet = await sandbox.run(code, { tools: echo })
    const seen: string[] = []
    const loud = await sandbox.run(code, {
      tools: echo,
      onEvent: (event) => {
        seen.push(event.type)
        throw new Error(`listener broke on ${event.type}`)
      },
    })
    expect(comparable(loud)).toEqual(comparable(quiet))
    expect(seen).toEqual(['log', 'tool-start', 'tool-end', 'log', 'result'])
    await settle()
    const ours = warnings.filter((w) => w.name === 'CordonWarning')
    expect(ours).toHaveLength(1)
    expect(ours[0]!.message).toContain('listener broke on log')
    expect((ours[0] as Error & { code?: string }).code).toBe('CORDON_ON_EVENT_THREW')
  })

  it('is not awaited: a listener whose promise never settles or rejects stalls nothing and leaves no unhandled rejection', async () => {
    const rejections: unknown[] = []
    const onRejection = (reason: unknown) => rejections.push(reason)
    process.on('unhandledRejection', onRejection)
    try {
      const never = await sandbox.run(code, { tools: echo, onEvent: () => new Promise(() => {}) })
      expect(never.ok).toBe(true)
      const rejecting = await sandbox.run(code, { tools: echo, onEvent: () => Promise.reject(new Error('async listener broke')) })
      expect(rejecting.ok && rejecting.value).toEqual({ n: 1 })
      await settle()
      expect(rejections).toEqual([])
      expect(warnings.filter((w) => w.message.includes('async listener broke'))).toHaveLength(1)
    } finally {
      process.off('unhandledRejection', onRejection)
    }
  })

  it('may abort the run from inside the listener: the run ends ABORTED and the events stay in order', async () => {
    const controller = new AbortController()
    const types: string[] = []
    const result = await sandbox.run('setInterval(() => {}, 1000); console.log("first"); await new Promise(() => {})', {
      signal: controller.signal,
      onEvent: (event) => {
        types.push(event.type)
        if (event.type === 'log') controller.abort(new Error('seen enough'))
      },
    })
    expect(!result.ok && result.error.code).toBe('ABORTED')
    expect(types).toEqual(['log', 'result'])
  })
})

describe('where onEvent is set', () => {
  it('is INVALID_OPTIONS when onEvent is not a function or includeToolValuesInEvents not a boolean', async () => {
    const bad: [string, () => unknown][] = [
      ['run onEvent', () => sandbox.run('1', { onEvent: 'log' as never })],
      ['run includeToolValuesInEvents', () => sandbox.run('1', { includeToolValuesInEvents: 1 as never })],
      ['a misspelt name', () => sandbox.run('1', { onEvents: () => {} } as never)],
      ['sandbox defaults', () => createSandbox(createVmBackend(), { onEvent: {} as never })],
      ['session options', () => sandbox.createSession({ onEvent: null as never })],
    ]
    for (const [what, action] of bad) {
      let thrown: unknown
      try {
        await action()
      } catch (error) {
        thrown = error
      }
      expect(isSandboxError(thrown, 'INVALID_OPTIONS'), what).toBe(true)
    }
    const session = await sandbox.createSession()
    try {
      await expect(session.run('1', { onEvent: 42 as never })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' })
    } finally {
      await session.dispose()
    }
  })

  it('as a sandbox default, replaced by a run that sets its own', async () => {
    const byDefault: string[] = []
    const own: string[] = []
    const configured = createSandbox(createVmBackend(), { onEvent: (event) => void byDefault.push(event.type) })
    try {
      await configured.run('console.log(1)')
      await configured.run('console.log(2)', { onEvent: (event) => void own.push(event.type) })
    } finally {
      await configured.dispose()
    }
    expect(byDefault).toEqual(['log', 'result'])
    expect(own).toEqual(['log', 'result'])
  })

  it("on a session, for each of its runs, and on one session run instead of the session's", async () => {
    const sessionEvents: RunEvent[] = []
    const runEvents: RunEvent[] = []
    const session = await sandbox.createSession({
      tools: echo,
      onEvent: (event) => void sessionEvents.push(event),
      includeToolValuesInEvents: true,
    })
    try {
      const first = await session.run('const kept = await t.echo("a"); kept')
      await session.run('console.log(kept)', { onEvent: (event) => void runEvents.push(event) })
      expect(sessionEvents.map((e) => e.type)).toEqual(['tool-start', 'tool-end', 'result'])
      expect(sessionEvents[1]).toMatchObject({ type: 'tool-end', result: 'a' })
      expect(sessionEvents.at(-1)).toMatchObject({ result: first })
      expect(shapes(runEvents)).toEqual([{ type: 'log', level: 'log', message: 'a' }, { type: 'result' }])
    } finally {
      await session.dispose()
    }
  })
})
