import { afterEach, describe, expect, it } from 'vitest'
import { createSandbox } from '../src/index.js'
import { DEFAULT_LIMITS } from '../src/limits.js'
import {
  CHANNEL_VERSION,
  ChannelPool,
  parseReport,
  type FarSideEvents,
  type FarSideLink,
  type Order,
  type SandboxBackend,
} from '../src/backend/index.js'
import { createChannelledBackend, linkInThread } from './support/channel-backend.js'
import { createVmBackend } from '../../conformance/test/fakes/vm-backend.js'

const disposables: { dispose(): Promise<void> }[] = []
afterEach(async () => {
  for (const item of disposables.splice(0)) await item.dispose()
})

function sandboxOver(backend: SandboxBackend) {
  const sandbox = createSandbox(backend)
  disposables.push(sandbox)
  return sandbox
}

describe('the channel carries the contract', () => {
  it('values, logs, tools, sync tools, errors and limits', async () => {
    const sandbox = sandboxOver(createChannelledBackend(() => createVmBackend()))
    const tools = {
      'h.add': { execute: ({ a, b }: { a: number; b: number }) => a + b },
      'h.fail': {
        execute: () => {
          throw new TypeError('bad input')
        },
      },
      'h.now': { sync: true, execute: () => 7 },
    }
    const ok = await sandbox.run(
      "console.log('a', 1)\nconst n = await h.add({ a: 2, b: 3 })\nlet e\ntry { await h.fail() } catch (x) { e = x.name + ': ' + x.message }\nreturn { n, e, s: h.now(), m: new Map([[1, -0]]) }",
      { tools },
    )
    expect(ok).toMatchObject({ ok: true, value: { n: 5, e: 'TypeError: bad input', s: 7 }, logs: [{ level: 'log', message: 'a 1' }] })
    expect(ok.ok && (ok.value as { m: Map<number, number> }).m.get(1)).toBe(-0)
    expect(await sandbox.run('throw new RangeError("r")')).toMatchObject({
      ok: false,
      error: { code: 'RUNTIME_ERROR', name: 'RangeError' },
    })
    expect(await sandbox.run('setInterval(() => {}, 50)\nawait new Promise(() => {})', { timeoutMs: 200 })).toMatchObject({
      ok: false,
      error: { code: 'TIMEOUT' },
    })
    expect(await sandbox.run('h.add({ a: 1, b: 1 })\nh.add({ a: 1, b: 1 })', { tools, maxToolCalls: 1 })).toMatchObject({
      ok: false,
      error: { code: 'TOOL_CALL_LIMIT' },
    })
  })

  it('sessions keep their state and end on dispose', async () => {
    const sandbox = sandboxOver(createChannelledBackend(() => createVmBackend()))
    const session = await sandbox.createSession()
    expect(await session.run('globalThis.x = 20; x')).toMatchObject({ ok: true, value: 20 })
    expect(await session.run('x + 1')).toMatchObject({ ok: true, value: 21 })
    await session.dispose()
  })
})

describe('which far side a run goes to', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

  /** A pool of in-thread far sides over the vm backend, recording which far side each run went to. */
  function recordingPool() {
    const runsOn: number[] = []
    let started = 0
    const pool = new ChannelPool({
      label: 'in-thread far side',
      start(events) {
        const index = started++
        const link = linkInThread(createVmBackend(), events)
        const send = link.transport.send.bind(link.transport)
        const isRun = (order: unknown) => Array.isArray(order) && order[0] === 'run'
        return {
          ...link,
          transport: {
            ...link.transport,
            send(batch) {
              if (Array.isArray(batch) && batch.some(isRun)) runsOn.push(index)
              send(batch)
            },
          },
        }
      },
      maxSides: 4,
      minSides: 1,
      idleMs: 5_000,
      maxChars: 2 ** 20,
      stopGraceMs: 200,
      killGraceMs: 1_000,
    })
    const inner = createVmBackend()
    const sandbox = sandboxOver({
      specificationVersion: 'v1',
      name: 'recorded',
      capabilities: inner.capabilities,
      prepare: () => pool.warm(),
      execute: (request) => pool.execute(request),
      dispose: () => Promise.resolve(pool.dispose({ code: 'ABORTED', message: 'disposed' })),
    })
    return { sandbox, runsOn, started: () => started }
  }

  it('runs after a pause stay on one far side; runs back to back start a second and take turns', async () => {
    const { sandbox, runsOn, started } = recordingPool()
    for (let i = 0; i < 4; i++) {
      expect(await sandbox.run('1')).toMatchObject({ ok: true })
      await sleep(30)
    }
    // prepare() started the first far side ahead of the first run; nothing more was needed.
    expect(started()).toBe(1)
    expect(new Set(runsOn)).toEqual(new Set([0]))
    // Back to back: from the third run in a row a second far side starts; once it has said hello
    // the runs take turns, the one idle longest first.
    for (let i = 0; i < 12; i++) await sandbox.run('1')
    expect(started()).toBe(2)
    await sleep(50)
    runsOn.length = 0
    for (let i = 0; i < 10; i++) await sandbox.run('1')
    expect(new Set(runsOn)).toEqual(new Set([0, 1]))
    // After a pause again, the far side used last takes the runs.
    runsOn.length = 0
    for (let i = 0; i < 4; i++) {
      await sleep(30)
      await sandbox.run('1')
    }
    expect(new Set(runsOn).size).toBe(1)
  })
})

/** A far side scripted by the test: it answers `hello` and then whatever `script` says for each order. */
function scriptedBackend(script: (order: Order, say: (batch: unknown) => void) => void, stopGraceMs = 50, killGraceMs = 200) {
  const started: { killed: boolean }[] = []
  const pool = new ChannelPool({
    label: 'scripted far side',
    start(events: FarSideEvents): FarSideLink {
      const side = { killed: false }
      started.push(side)
      const say = (batch: unknown) => setImmediate(() => !side.killed && events.receive(batch))
      say([['hello', CHANNEL_VERSION]])
      return {
        transport: { send: (batch) => setImmediate(() => !side.killed && batch.forEach((order) => script(order, say))) },
        kill() {
          side.killed = true
          setImmediate(() => events.lost({ code: 'BACKEND_CRASHED', message: 'ended' }))
        },
        hold() {},
      }
    },
    maxSides: 1,
    minSides: 1,
    idleMs: 1_000,
    maxChars: 1_000,
    stopGraceMs,
    killGraceMs,
  })
  const backend: SandboxBackend = {
    specificationVersion: 'v1',
    name: 'scripted',
    capabilities: {
      isolation: 'process',
      memoryLimit: false,
      syncHostCalls: false,
      survivesGuestOom: true,
      cpuTime: false,
      heapStats: false,
      networkIsolation: false,
      sessions: false,
      preemptive: true,
    },
    execute: (request) => pool.execute(request),
    dispose: () => Promise.resolve(pool.dispose({ code: 'ABORTED', message: 'disposed' })),
  }
  return { backend, started }
}

const value = (runId: number, wire: string) => ['done', runId, { ok: true, value: wire }, false]

describe('a hostile far side', () => {
  const breaches: [string, (runId: number) => unknown[]][] = [
    ['a report that is not an array', () => [42]],
    ['an unknown kind', (runId) => [['boom', runId]]],
    ['a result for a run it was never sent', (runId) => [value(runId + 100, '1')]],
    ['a second hello', () => [['hello', CHANNEL_VERSION]]],
    ['a log at an unknown level', (runId) => [['logs', runId, 's1:x']]],
    ['log entries whose length runs past the text', (runId) => [['logs', runId, 'l9:x']]],
    ['a string over the size cap', (runId) => [['logs', runId, 'l2000:' + 'x'.repeat(2_000)]]],
    ['an outcome with an unknown error code', (runId) => [['done', runId, { ok: false, error: { code: 'PWNED', message: 'x' } }, false]]],
    ['stats that are not numbers', (runId) => [['done', runId, { ok: true, value: '1', stats: { cpuMs: '5' } }, false]]],
    ['an answer nobody asked for', (runId) => [['usage', runId, 99, 1]]],
  ]
  for (const [what, reports] of breaches) {
    it(`${what}: the run ends BACKEND_CRASHED, the far side is ended, the next run gets a new one`, async () => {
      let breached = false
      const { backend, started } = scriptedBackend((order, say) => {
        if (order[0] !== 'run') return
        if (!breached) {
          breached = true
          say(reports(order[1]))
        } else say([value(order[1], '{"t":"n","v":"2"}')])
      })
      const sandbox = sandboxOver(backend)
      const first = await sandbox.run('1')
      expect(first).toMatchObject({
        ok: false,
        error: { code: 'BACKEND_CRASHED', message: expect.stringMatching(/broke the channel protocol/) },
      })
      expect(started[0]?.killed).toBe(true)
      expect(await sandbox.run('2')).toMatchObject({ ok: true })
      expect(started).toHaveLength(2)
    })
  }

  it('a far side of another protocol version is refused', async () => {
    const pool = new ChannelPool({
      label: 'old far side',
      start(events) {
        setImmediate(() => events.receive([['hello', CHANNEL_VERSION + 1]]))
        return {
          transport: { send() {} },
          kill: () => setImmediate(() => events.lost({ code: 'BACKEND_CRASHED', message: 'x' })),
          hold() {},
        }
      },
      maxSides: 1,
      minSides: 1,
      idleMs: 1_000,
      maxChars: 1_000,
      stopGraceMs: 50,
      killGraceMs: 200,
    })
    const { backend } = scriptedBackend(() => {})
    const sandbox = sandboxOver({ ...backend, execute: (request) => pool.execute(request) })
    expect(await sandbox.run('1')).toMatchObject({
      ok: false,
      error: { code: 'BACKEND_CRASHED', message: expect.stringMatching(/version/) },
    })
  })

  it('a far side that ignores a stop: the run ends with its stop reason after the grace, the far side is ended soon after', async () => {
    const { backend, started } = scriptedBackend(() => {})
    const sandbox = sandboxOver(backend)
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    const begun = performance.now()
    const result = await sandbox.run('1', { signal: controller.signal, timeoutMs: 30_000 })
    expect(result).toMatchObject({ ok: false, error: { code: 'ABORTED' } })
    expect(performance.now() - begun).toBeLessThan(5_000)
    expect(started[0]?.killed).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(started[0]?.killed).toBe(true)
  })

  it('a far side that reports after its stop grace: nothing it sends for that run reaches the host, whose result has gone', async () => {
    let late: ((batch: unknown) => void) | undefined
    let runId = -1
    const { backend, started } = scriptedBackend(
      (order, say) => {
        if (order[0] === 'run') runId = order[1]
        if (order[0] === 'stop') late = say
      },
      50,
      5_000,
    )
    const seen: string[] = []
    const controller = new AbortController()
    const outcome = backend.execute({
      script: '1',
      filename: 'guest.js',
      setup: '',
      tools: [{ name: 't.x', sync: false }],
      limits: DEFAULT_LIMITS,
      deadline: Date.now() + 30_000,
      signal: controller.signal,
      host: {
        log: (_level, message) => void seen.push('log ' + message),
        callTool: () => (seen.push('call'), Promise.resolve('"x"')),
        callToolSync: () => '"x"',
      },
    })
    setTimeout(() => controller.abort(new Error('stop')), 10)
    expect(await outcome).toMatchObject({ ok: false })
    // What a stopped guest's far side still had queued: its last logs, a call, then its result.
    late?.([
      ['logs', runId, 'l4:late'],
      ['call', runId, 0, 't.x', '[]'],
      ['done', runId, { ok: true, value: '{"t":"n","v":"1"}' }, false],
    ])
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(seen).toEqual([])
    expect(started[0]?.killed).toBe(false)
  })

  it('a run that finds the only far side still finishing a stopped run waits for it, and runs', async () => {
    let runs = 0
    const { backend, started } = scriptedBackend(
      (order, say) => {
        // The first run ignores its stop for 300 ms (past the stop grace): a slow far side.
        if (order[0] === 'run' && ++runs > 1) say([value(order[1], '{"t":"n","v":"2"}')])
        if (order[0] === 'stop') setTimeout(() => say([['done', order[1], { ok: true, value: '{"t":"n","v":"1"}' }, false]]), 300)
      },
      50,
      5_000,
    )
    const sandbox = sandboxOver(backend)
    expect(await sandbox.run('1', { timeoutMs: 50 })).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } })
    // Not 'all full': it waits until the far side has room again.
    expect(await sandbox.run('2', { timeoutMs: 10_000 })).toMatchObject({ ok: true })
    expect(started).toHaveLength(1)
    // A run that cannot get room before its deadline ends TIMEOUT, as a waiting run does.
    const stuck = scriptedBackend(() => {}, 50, 5_000)
    const stuckSandbox = sandboxOver(stuck.backend)
    expect(await stuckSandbox.run('1', { timeoutMs: 50 })).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } })
    expect(await stuckSandbox.run('2', { timeoutMs: 200 })).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } })
    await stuckSandbox.dispose()
    await sandbox.dispose()
  })

  it("the far side cannot rename a stop: a stopped run reports the host's reason", async () => {
    const { backend } = scriptedBackend((order, say) => {
      if (order[0] === 'stop')
        say([['done', order[1], { ok: false, error: { code: 'ABORTED', message: 'whatever the far side says' } }, false]])
    })
    const sandbox = sandboxOver(backend)
    expect(await sandbox.run('1', { timeoutMs: 100 })).toMatchObject({
      ok: false,
      error: { code: 'TIMEOUT', message: expect.stringMatching(/timeoutMs \(100 ms\)/) },
    })
  })
})

describe('parseReport', () => {
  it('rebuilds an outcome from its known fields only', () => {
    const report = parseReport(
      ['done', 1, { ok: false, error: { code: 'RUNTIME_ERROR', message: 'm', extra: 'x', line: 2 }, stats: { cpuMs: 1, x: 2 } }, true],
      {
        maxChars: 100,
      },
    )
    expect(report).toEqual(['done', 1, { ok: false, error: { code: 'RUNTIME_ERROR', message: 'm', line: 2 }, stats: { cpuMs: 1 } }, true])
  })
})
