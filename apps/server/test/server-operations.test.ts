import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRemoteBackend } from '@cordon/backend-remote'
import { DEFAULT_LIMITS, createSandbox } from '@cordon/core'
import { IDLE_CLOSE_CODE } from '@cordon/core/backend'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type CordonServer, type LogEntry } from '../src/index.js'
import { metricsOf, sample } from './support/metrics-text.js'

const TOKEN = 'operations-test-token-0123456789'
const sleep = (ms: number) => new Promise((resume) => setTimeout(resume, ms))

describe('health, readiness, metrics and logs', () => {
  let server: CordonServer
  const logs: LogEntry[] = []
  beforeAll(async () => {
    server = await startServer({ token: TOKEN, backend: 'quickjs', log: (entry) => logs.push(entry) })
  })
  afterAll(() => server.close())

  it('is alive and ready once started', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200)
    expect((await fetch(`${server.url}/nope`)).status).toBe(404)
    expect((await fetch(`${server.url}/healthz`, { method: 'POST' })).status).toBe(405)
  })

  it('counts runs by backend and code, times them, and logs them under the run id the caller sees', async () => {
    const sandbox = createSandbox(await createRemoteBackend({ url: server.url, token: TOKEN }))
    const before = await metricsOf(server.url)
    const ok = await sandbox.run('1 + 1')
    const failed = await sandbox.run('throw new Error("no")')
    const after = await metricsOf(server.url)
    const count = (text: string, code: string) => sample(text, 'cordon_server_runs_total', { backend: 'quickjs', code })
    expect(count(after, 'OK') - count(before, 'OK')).toBe(1)
    expect(count(after, 'RUNTIME_ERROR') - count(before, 'RUNTIME_ERROR')).toBe(1)
    expect(sample(after, 'cordon_server_run_duration_seconds_count', { backend: 'quickjs' })).toBeGreaterThanOrEqual(2)
    expect(sample(after, 'cordon_server_runs_in_flight')).toBe(0)
    expect(after).toContain('cordon_server_process_cpu_seconds_total')
    const ended = logs.filter((entry) => entry.msg === 'run ended')
    expect(ended).toContainEqual(expect.objectContaining({ level: 'info', runId: ok.stats.runId, code: 'OK' }))
    expect(ended).toContainEqual(expect.objectContaining({ runId: failed.stats.runId, code: 'RUNTIME_ERROR' }))
    expect(logs.find((entry) => entry.msg === 'run started' && entry.runId === ok.stats.runId)?.time).toMatch(/^\d{4}-\d\d-\d\dT/)
    await sandbox.dispose()
  })

  it("logs a traced run's traceparent", async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'
    const ws = new WebSocket(server.url.replace('http', 'ws') + '/v1/channel', { headers: { authorization: `Bearer ${TOKEN}` } })
    await new Promise((resolve) => ws.once('open', resolve))
    const order = {
      script: 'async () => 1',
      filename: 'guest.js',
      setup: '{}',
      tools: [],
      limits: DEFAULT_LIMITS,
      timeLeftMs: 1_000,
      traceparent,
    }
    ws.send(JSON.stringify([['run', 1, 0, 0, order]]))
    await expect.poll(() => logs.find((entry) => entry.msg === 'run started' && entry.traceparent === traceparent)).toBeDefined()
    ws.close()
  })
})

describe('capacity: --max-runs', () => {
  it('one more run than the places is refused at once with BUSY, and counted; the place comes back', async () => {
    const server = await startServer({ token: TOKEN, backend: 'quickjs', maxRuns: 1, log: () => undefined })
    const sandbox = createSandbox(await createRemoteBackend({ url: server.url, token: TOKEN }))
    const session = await sandbox.createSession()
    const started = performance.now()
    expect(await sandbox.run('1')).toMatchObject({ ok: false, error: { code: 'BUSY' } })
    expect(performance.now() - started).toBeLessThan(1_000)
    expect(sample(await metricsOf(server.url), 'cordon_server_refusals_total', { reason: 'busy' })).toBe(1)
    await session.dispose()
    await expect.poll(() => server.connections).toBe(0)
    expect(await sandbox.run('2')).toMatchObject({ ok: true, value: 2 })
    await sandbox.dispose()
    await server.close()
  })
})

describe('kept connections', () => {
  it('a connection left idle is closed with IDLE_CLOSE_CODE; draining closes idle ones at once', async () => {
    const server = await startServer({ token: TOKEN, backend: 'quickjs', idleConnectionMs: 300, log: () => undefined })
    const url = server.url.replace('http', 'ws') + '/v1/channel'
    const open = async () => {
      const ws = new WebSocket(url, { headers: { authorization: `Bearer ${TOKEN}` } })
      const closed = new Promise<number>((resolve) => ws.on('close', (code: number) => resolve(code)))
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
      return { closed }
    }
    const started = performance.now()
    expect(await (await open()).closed).toBe(IDLE_CLOSE_CODE)
    expect(performance.now() - started).toBeGreaterThanOrEqual(250)
    await expect.poll(() => server.connections).toBe(0)
    const second = await open()
    const drained = server.drain()
    expect(await second.closed).toBe(IDLE_CLOSE_CODE)
    await drained
  })

  it('a run on a kept connection when every place is taken ends BUSY, unstarted', async () => {
    const server = await startServer({ token: TOKEN, backend: 'quickjs', maxRuns: 1, log: () => undefined })
    const holder = createSandbox(await createRemoteBackend({ url: server.url, token: TOKEN, keepAliveMs: 0 }))
    const other = createSandbox(await createRemoteBackend({ url: server.url, token: TOKEN }))
    expect(await other.run('1')).toMatchObject({ ok: true })
    expect(server.connections).toBe(1)
    let release!: () => void
    const holding = holder.run('await t.hold()', {
      tools: { 't.hold': { execute: () => new Promise<void>((resolve) => (release = resolve)) } },
    })
    await expect.poll(() => server.inUse).toBe(1)
    let calls = 0
    const refused = await other.run('await t.count()', { tools: { 't.count': { execute: () => ++calls } } })
    expect(refused).toMatchObject({ ok: false, error: { code: 'BUSY' } })
    expect(calls).toBe(0)
    await expect.poll(() => release).toBeDefined()
    release()
    expect(await holding).toMatchObject({ ok: true })
    expect(await other.run('2')).toMatchObject({ ok: true, value: 2 })
    await holder.dispose()
    await other.dispose()
    await server.close()
  })
})

describe('draining', () => {
  it('takes no new runs, finishes the ones it has, then closes', async () => {
    const server = await startServer({ token: TOKEN, backend: 'quickjs', log: () => undefined })
    const backend = await createRemoteBackend({ url: server.url, token: TOKEN, connectTimeoutMs: 500 })
    const sandbox = createSandbox(backend)
    const slow = { 't.slow': { execute: () => sleep(800).then(() => 'finished') } }
    const running = sandbox.run('await t.slow()', { tools: slow })
    await expect.poll(() => server.connections).toBe(1)
    const drained = server.drain()
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503)
    expect(await sandbox.run('1')).toMatchObject({ ok: false, error: { code: 'BACKEND_UNAVAILABLE' } })
    expect(sample(await metricsOf(server.url), 'cordon_server_refusals_total', { reason: 'draining' })).toBeGreaterThan(0)
    expect(await running).toMatchObject({ ok: true, value: 'finished' })
    await drained
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow()
    await sandbox.dispose()
  })
})

describe('TLS', () => {
  let dir: string
  let server: CordonServer
  let cert: string
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cordon-server-tls-'))
    // A self-signed certificate for 127.0.0.1, made by the openssl command line.
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    )
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8')
    server = await startServer({
      token: TOKEN,
      backend: 'quickjs',
      tls: { cert, key: readFileSync(join(dir, 'key.pem'), 'utf8') },
      log: () => undefined,
    })
  })
  afterAll(async () => {
    await server.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('serves wss:// to a caller that trusts the certificate', async () => {
    expect(server.url).toMatch(/^https:/)
    const sandbox = createSandbox(await createRemoteBackend({ url: server.url.replace('https', 'wss'), token: TOKEN, ca: cert }))
    expect(await sandbox.run('"over TLS"')).toMatchObject({ ok: true, value: 'over TLS' })
    await sandbox.dispose()
  })

  it('a caller that does not trust it never connects', async () => {
    await expect(createRemoteBackend({ url: server.url, token: TOKEN })).rejects.toMatchObject({
      code: 'BACKEND_UNAVAILABLE',
      message: /self-signed|certificate/,
    })
  })
})
