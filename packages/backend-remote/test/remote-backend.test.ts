import { createSandbox, type Sandbox } from '@cordon/core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createRemoteBackend } from '../src/index.js'
import { FAKE_TOKEN, startFakeServer, type FakeServer } from './support/fake-server.js'

let fake: FakeServer
let sandbox: Sandbox

beforeAll(async () => {
  fake = await startFakeServer()
  // A connection per run, so each run meets the fake's refusals and behaviours afresh.
  sandbox = createSandbox(await createRemoteBackend({ url: fake.url, token: FAKE_TOKEN, keepAliveMs: 0 }))
})
afterAll(async () => {
  await sandbox.dispose()
  await fake.close()
})
afterEach(() => {
  fake.behaviour = 'serve'
  fake.laterRun = 'serve'
  fake.refusals = []
})

const tools = { 't.add': { execute: ({ a, b }: { a: number; b: number }) => a + b } }

describe('createRemoteBackend options', () => {
  it.each([
    [undefined, /expected an object/],
    [{ url: 'ftp://x', token: 't' }, /must start with ws/],
    [{ url: 'not a url', token: 't' }, /not a URL/],
    [{ url: 'http://u:p@x', token: 't' }, /credentials/],
    [{ url: 'http://x', token: '' }, /token/],
    [{ url: 'http://x', token: 't', connectTimeoutMs: 0 }, /connectTimeoutMs/],
    [{ url: 'http://x', token: 't', keepAliveMs: -1 }, /keepAliveMs/],
    [{ url: 'http://x', token: 't', ca: [42] }, /ca must be/],
    [{ url: 'http://x', token: 't', tokne: 't' }, /unknown option "tokne"/],
  ])('refuses %j with INVALID_OPTIONS', async (options, message) => {
    await expect(createRemoteBackend(options as never)).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message })
  })

  it('says BACKEND_UNAVAILABLE when nothing answers, the token is refused, or the answer is not a cordon server', async () => {
    await expect(createRemoteBackend({ url: 'http://127.0.0.1:1', token: 't', connectTimeoutMs: 500 })).rejects.toMatchObject({
      code: 'BACKEND_UNAVAILABLE',
      message: /cannot reach/,
    })
    await expect(createRemoteBackend({ url: fake.url, token: 'wrong' })).rejects.toMatchObject({
      code: 'BACKEND_UNAVAILABLE',
      message: /refused the token/,
    })
    const saved = fake.info
    try {
      fake.info = { ...(saved as object), channelVersion: 99 }
      await expect(createRemoteBackend({ url: fake.url, token: FAKE_TOKEN })).rejects.toMatchObject({ message: /channel version 99/ })
      fake.info = { ...(saved as object), capabilities: { isolation: 'none' } }
      await expect(createRemoteBackend({ url: fake.url, token: FAKE_TOKEN })).rejects.toMatchObject({ message: /not a cordon server/ })
    } finally {
      fake.info = saved
    }
  })

  it('takes its capabilities and caps from the server', async () => {
    const backend = await createRemoteBackend({ url: fake.url.replace('http', 'ws'), token: FAKE_TOKEN })
    expect(backend.name).toBe('remote')
    expect(backend.capabilities.isolation).toBe('wasm')
    expect(backend.capabilities.syncHostCalls).toBe(false)
    expect(backend.server).toEqual({ backend: 'quickjs', maxLimits: { timeoutMs: 60_000, memoryMb: 256 }, maxMessageBytes: 1024 * 1024 })
    await backend.dispose()
  })
})

describe('runs over a socket', () => {
  it('runs a program whose tools and logs stay with the caller, and names the run', async () => {
    const result = await sandbox.run('console.log("on the server"); await t.add({ a: 40, b: 2 })', { tools })
    expect(result).toMatchObject({ ok: true, value: 42, logs: [{ level: 'log', message: 'on the server' }] })
    expect(result.stats.runId).toMatch(/^[0-9a-f-]{36}$/)
    expect(fake.upgrades.at(-1)?.headers['x-cordon-run-id']).toBe(result.stats.runId)
  })

  it("passes a traced run's traceparent on in its run order", async () => {
    const { context, trace } = await import('@opentelemetry/api')
    const { BasicTracerProvider } = await import('@opentelemetry/sdk-trace-base')
    trace.setGlobalTracerProvider(new BasicTracerProvider())
    try {
      const connections = fake.orders.length
      expect(await sandbox.run('1')).toMatchObject({ ok: true })
      const run = fake.orders
        .slice(connections)
        .flat()
        .find((order) => order[0] === 'run')
      expect(run?.[4]).toMatchObject({ traceparent: expect.stringMatching(/^00-[\da-f]{32}-[\da-f]{16}-01$/) })
    } finally {
      trace.disable()
      context.disable()
    }
  })

  it('ends limits over the server caps INVALID_OPTIONS without a connection', async () => {
    const before = fake.upgrades.length
    const result = await sandbox.run('1', { memoryMb: 512 })
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_OPTIONS', message: /cap of 256/ } })
    expect(fake.upgrades.length).toBe(before)
  })

  it('a busy server: BUSY at once, nothing sent', async () => {
    fake.refusals = [{ status: 503, refusal: 'busy' }]
    const orders = fake.orders.length
    const result = await sandbox.run('1')
    expect(result).toMatchObject({ ok: false, error: { code: 'BUSY' } })
    expect(fake.orders.length).toBe(orders)
  })

  it('retries only what started nothing: a draining server and a proxy without a server, then runs once', async () => {
    fake.refusals = [{ status: 503, refusal: 'draining' }, { status: 502 }, { status: 503 }]
    const before = fake.upgrades.length
    const result = await sandbox.run('6 * 7')
    expect(result).toMatchObject({ ok: true, value: 42 })
    expect(fake.upgrades.length - before).toBe(4)
  })

  it('a refused token ends BACKEND_UNAVAILABLE, not retried', async () => {
    fake.refusals = [{ status: 401 }]
    const before = fake.upgrades.length
    expect(await sandbox.run('1')).toMatchObject({ ok: false, error: { code: 'BACKEND_UNAVAILABLE', message: /refused the token/ } })
    expect(fake.upgrades.length - before).toBe(1)
  })

  it('gives up on connecting within connectTimeoutMs: BACKEND_UNAVAILABLE', async () => {
    const backend = await createRemoteBackend({ url: fake.url, token: FAKE_TOKEN, connectTimeoutMs: 300 })
    fake.refusals = Array.from({ length: 100 }, () => ({ status: 503 }))
    const started = performance.now()
    const result = await createSandbox(backend).run('1')
    expect(result).toMatchObject({ ok: false, error: { code: 'BACKEND_UNAVAILABLE', message: /within 300 ms/ } })
    expect(performance.now() - started).toBeLessThan(2_000)
    await backend.dispose()
  })

  it('a run whose deadline comes while it is still connecting ends TIMEOUT, not BACKEND_UNAVAILABLE', async () => {
    // connectTimeoutMs is 15 s: the run's 300 ms deadline is what ends the attempts.
    fake.refusals = Array.from({ length: 100 }, () => ({ status: 503 }))
    const started = performance.now()
    const result = await sandbox.run('1', { timeoutMs: 300 })
    expect(result).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } })
    // At its deadline, not before it (timers may fire a millisecond early by Date.now()).
    expect(performance.now() - started).toBeGreaterThanOrEqual(295)
  })

  it('a connection dropped after the program was sent: BACKEND_CRASHED, and the program is never sent again', async () => {
    fake.behaviour = 'drop-on-run'
    const connections = fake.orders.length
    const result = await sandbox.run('await t.add({ a: 1, b: 1 })', { tools })
    expect(result).toMatchObject({ ok: false, error: { code: 'BACKEND_CRASHED', message: /connection closed/ } })
    const runOrders = fake.orders
      .slice(connections)
      .flat()
      .filter((order) => order[0] === 'run')
    expect(runOrders).toHaveLength(1)
  })

  it('a silent server: the run ends TIMEOUT at its deadline, not a hang', async () => {
    fake.behaviour = 'silent'
    const started = performance.now()
    const result = await sandbox.run('1', { timeoutMs: 300 })
    expect(result).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } })
    // The stop order gets no answer either: the run resolves when its stop grace ends.
    expect(performance.now() - started).toBeLessThan(300 + 2_000 + 1_000)
  })

  it('a server that breaks the protocol: BACKEND_CRASHED', async () => {
    fake.behaviour = 'garbage'
    for (const garbage of ['not json', '{"a":1}', '[["done", 1, {"ok": true, "value": "1"}, false]]', '[["hello", 99]]']) {
      fake.garbage = garbage
      const result = await sandbox.run('1', { timeoutMs: 5_000 })
      expect(result, garbage).toMatchObject({ ok: false, error: { code: 'BACKEND_CRASHED' } })
    }
  })

  it('an abort while connecting ends the run ABORTED', async () => {
    fake.refusals = Array.from({ length: 100 }, () => ({ status: 503 }))
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    const result = await sandbox.run('1', { signal: controller.signal })
    expect(result).toMatchObject({ ok: false, error: { code: 'ABORTED' } })
  })

  it('a session lives on one connection', async () => {
    const before = fake.upgrades.length
    const session = await sandbox.createSession()
    expect(await session.run('globalThis.n = 1; n')).toMatchObject({ ok: true, value: 1 })
    const second = await session.run('++n')
    expect(second).toMatchObject({ ok: true, value: 2 })
    expect(fake.upgrades.length - before).toBe(1)
    const refs = fake.orders
      .at(-1)
      ?.filter((order) => order[0] === 'run')
      .map((order) => (order[4] as { ref?: string }).ref)
    expect(refs?.at(-1)).toBe(second.stats.runId)
    await session.dispose()
  })

  it('dispose ends runs in flight and refuses new ones', async () => {
    const backend = await createRemoteBackend({ url: fake.url, token: FAKE_TOKEN })
    const own = createSandbox(backend)
    fake.behaviour = 'silent'
    const running = own.run('1', { timeoutMs: 30_000 })
    await new Promise((resume) => setTimeout(resume, 200))
    await backend.dispose()
    expect(await running).toMatchObject({ ok: false, error: { code: 'BACKEND_UNAVAILABLE', message: /disposed/ } })
    expect(await createSandbox(backend).run('1')).toMatchObject({ ok: false, error: { code: 'BACKEND_UNAVAILABLE' } })
  })
})

describe('kept connections', () => {
  let kept: Sandbox
  beforeAll(async () => {
    kept = createSandbox(await createRemoteBackend({ url: fake.url, token: FAKE_TOKEN }))
  })
  afterAll(() => kept.dispose())

  const runsOn = (from: number) =>
    fake.orders
      .slice(from)
      .flat()
      .filter((order) => order[0] === 'run')

  it('runs one after another on one connection, each under its own id', async () => {
    await kept.run('0')
    const upgrades = fake.upgrades.length
    const results = [await kept.run('1'), await kept.run('2'), await kept.run('3')]
    expect(results.map((result) => result.ok && result.value)).toEqual([1, 2, 3])
    expect(fake.upgrades.length).toBe(upgrades)
    const ids = results.map((result) => result.stats.runId)
    expect(new Set(ids).size).toBe(3)
    expect(
      runsOn(0)
        .slice(-3)
        .map((order) => (order[4] as { ref?: string }).ref),
    ).toEqual(ids)
  })

  it.each([
    ['closed as idle just as the run is sent', 'idle-close'],
    ['without a place for the run', 'busy'],
  ] as const)('a kept connection %s: the run goes once more on a new connection, its tool called once', async (_name, laterRun) => {
    await kept.run('0')
    fake.laterRun = laterRun
    let calls = 0
    const tools = { 't.count': { execute: () => ++calls } }
    const upgrades = fake.upgrades.length
    const result = await kept.run('await t.count()', { tools })
    expect(result).toMatchObject({ ok: true, value: 1 })
    expect(calls).toBe(1)
    expect(fake.upgrades.length).toBe(upgrades + 1)
  })

  it('a kept connection that drops after the run was sent: BACKEND_CRASHED, never sent again', async () => {
    await kept.run('0')
    fake.laterRun = 'drop'
    const orders = fake.orders.length
    const before = runsOn(orders - 1).length
    const result = await kept.run('1')
    expect(result).toMatchObject({ ok: false, error: { code: 'BACKEND_CRASHED' } })
    expect(runsOn(orders - 1).length - before).toBe(1)
  })

  it('keepAliveMs: 0 opens a connection for every run', async () => {
    const upgrades = fake.upgrades.length
    await sandbox.run('1')
    await sandbox.run('2')
    expect(fake.upgrades.length).toBe(upgrades + 2)
  })
})
