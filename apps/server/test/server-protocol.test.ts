import { createRemoteBackend } from '@cordon/backend-remote'
import { DEFAULT_LIMITS, createSandbox } from '@cordon/core'
import { CHANNEL_VERSION } from '@cordon/core/backend'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type CordonServer } from '../src/index.js'
import { metricsOf, sample } from './support/metrics-text.js'

const TOKEN = 'protocol-test-token-0123456789'
let server: CordonServer
let channelUrl: string

beforeAll(async () => {
  server = await startServer({ token: TOKEN, backend: 'quickjs', maxMessageBytes: 256 * 1024, log: () => undefined })
  channelUrl = server.url.replace('http', 'ws') + '/v1/channel'
})
afterAll(() => server.close())

/** A raw connection, as a hostile caller makes one. */
async function connect(token = TOKEN): Promise<{ ws: WebSocket; reports: unknown[][]; closed: Promise<number> }> {
  const ws = new WebSocket(channelUrl, { headers: { authorization: `Bearer ${token}` } })
  const reports: unknown[][] = []
  ws.on('message', (data: Buffer) => reports.push(...(JSON.parse(data.toString()) as unknown[][])))
  const closed = new Promise<number>((resolve) => ws.on('close', (code: number) => resolve(code)))
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  return { ws, reports, closed }
}

async function refusedStatus(headers: Record<string, string>): Promise<number> {
  const ws = new WebSocket(channelUrl, { headers })
  return new Promise((resolve) => {
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    ws.on('open', () => resolve(101))
    ws.on('error', () => undefined)
  })
}

const runOrder = (overrides: object = {}) => ({
  script: 'async () => 1',
  filename: 'guest.js',
  setup: '{}',
  tools: [],
  limits: { ...DEFAULT_LIMITS },
  timeLeftMs: 1_000,
  ...overrides,
})

describe('cordon-server refuses callers without the token', () => {
  it('no token, a wrong one, or a wrong scheme: 401 before any upgrade, counted', async () => {
    const before = sample(await metricsOf(server.url), 'cordon_server_refusals_total', { reason: 'token' })
    expect(await refusedStatus({})).toBe(401)
    expect(await refusedStatus({ authorization: 'Bearer wrong' })).toBe(401)
    expect(await refusedStatus({ authorization: `Basic ${TOKEN}` })).toBe(401)
    expect(await refusedStatus({ authorization: 'Bearer ' })).toBe(401)
    expect((await fetch(`${server.url}/v1/info`)).status).toBe(401)
    expect(sample(await metricsOf(server.url), 'cordon_server_refusals_total', { reason: 'token' }) - before).toBe(5)
  })

  it('the info needs the token, and says what runs the programs', async () => {
    const info = (await (await fetch(`${server.url}/v1/info`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as Record<
      string,
      unknown
    >
    expect(info).toMatchObject({
      channelVersion: CHANNEL_VERSION,
      backend: 'quickjs',
      maxMessageBytes: 256 * 1024,
      capabilities: { syncHostCalls: false },
    })
  })
})

describe('every frame from a caller is hostile', () => {
  const breaches: [string, string | Buffer][] = [
    ['a binary frame', Buffer.from('[]')],
    ['not JSON', 'not json'],
    ['a batch that is not an array', '{"run":1}'],
    ['an unknown order', '[["exec", 1]]'],
    ['a malformed run', '[["run", 1, 0, 0, {}]]'],
    ['a run slot out of range', JSON.stringify([['run', 1, 0, 64, runOrder()]])],
    ['a limit core would refuse', JSON.stringify([['run', 1, 0, 0, runOrder({ limits: { ...DEFAULT_LIMITS, timeoutMs: 1e12 } })]])],
    ['a negative time left', JSON.stringify([['run', 1, 0, 0, runOrder({ timeLeftMs: -1 })]])],
    ['a tool without a name', JSON.stringify([['run', 1, 0, 0, runOrder({ tools: [{ sync: false }] })]])],
    [
      'two runs at once',
      JSON.stringify([
        ['run', 1, 0, 0, runOrder()],
        ['run', 2, 0, 1, runOrder()],
      ]),
    ],
    ['a run in a session it did not open', JSON.stringify([['run', 1, 7, 0, runOrder()]])],
    ['two sessions on one connection', '[["open", 1, 64], ["open", 2, 64]]'],
    ['an open order with a malformed inspector flag', '[["open", 1, 64, "yes"]]'],
    ["an inspector order (whoever drives an engine's inspector controls its guest)", '[["inspect-open", 1, 1]]'],
    ['a stop with an unknown code', '[["stop", 1, "NOPE", "x"]]'],
    ['a malformed traceparent', JSON.stringify([['run', 1, 0, 0, runOrder({ traceparent: 'x'.repeat(55) })]])],
  ]
  it.each(breaches)('%s closes the connection (1008)', async (_name, frame) => {
    const { ws, closed } = await connect()
    ws.send(frame)
    expect(await closed).toBe(1008)
  })

  it('a message over --max-message-bytes closes the connection (1009)', async () => {
    const { ws, closed } = await connect()
    ws.send(JSON.stringify([['run', 1, 0, 0, runOrder({ script: 'x'.repeat(300 * 1024) })]]))
    expect(await closed).toBe(1009)
  })

  it('limits over the server caps end the run INVALID_OPTIONS, before any engine', async () => {
    const { ws, reports } = await connect()
    ws.send(JSON.stringify([['run', 1, 0, 0, runOrder({ limits: { ...DEFAULT_LIMITS, memoryMb: 4096 } })]]))
    await expect
      .poll(() => reports.find((report) => report[0] === 'done'))
      .toMatchObject(['done', 1, { ok: false, error: { code: 'INVALID_OPTIONS', message: /cap of 512/ } }, false])
    ws.close()
  })

  it('after all that, the server still runs programs', async () => {
    const sandbox = createSandbox(await createRemoteBackend({ url: server.url, token: TOKEN }))
    expect(await sandbox.run('6 * 7')).toMatchObject({ ok: true, value: 42 })
    await sandbox.dispose()
  })
})

describe('no state crosses connections', () => {
  it("another connection's stop and settle orders never reach a run", async () => {
    const sandbox = createSandbox(await createRemoteBackend({ url: server.url, token: TOKEN }))
    let answer!: (value: string) => void
    const tools = { 't.wait': { execute: () => new Promise<string>((resolve) => (answer = resolve)) } }
    const running = sandbox.run('await t.wait()', { tools })
    await expect.poll(() => answer).toBeDefined()
    // Run ids start at 1 on every connection: a stranger aims at the same id.
    const stranger = await connect()
    stranger.ws.send(
      JSON.stringify([
        ['settle', 1, 0, true, '"forged"'],
        ['stop', 1, 'ABORTED', 'forged'],
      ]),
    )
    await new Promise((resume) => setTimeout(resume, 200))
    answer('mine')
    expect(await running).toMatchObject({ ok: true, value: 'mine' })
    stranger.ws.close()
    await sandbox.dispose()
  })

  it('a caller that goes away mid-run: its run is stopped', async () => {
    const backend = await createRemoteBackend({ url: server.url, token: TOKEN })
    const before = sample(await metricsOf(server.url), 'cordon_server_runs_total', { backend: 'quickjs', code: 'ABORTED' })
    const spinning = createSandbox(backend).run('for (;;) {}', { timeoutMs: 60_000 })
    await expect.poll(async () => sample(await metricsOf(server.url), 'cordon_server_runs_in_flight')).toBe(1)
    await backend.dispose()
    await spinning
    await expect.poll(async () => sample(await metricsOf(server.url), 'cordon_server_runs_in_flight'), { timeout: 5_000 }).toBe(0)
    expect(sample(await metricsOf(server.url), 'cordon_server_runs_total', { backend: 'quickjs', code: 'ABORTED' }) - before).toBe(1)
  })
})
