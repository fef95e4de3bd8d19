import { spawn } from 'node:child_process'
import { connect as tcpConnect, createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureHaproxy } from './haproxy.js'
import { DEMO_UPSTREAM, newToken, runJavaScript, startHttpServer, track, writeConfig, type HttpServer } from './helpers.js'

// Two stateless cordon-mcp replicas behind a real HAProxy on 127.0.0.1, configured by
// examples/haproxy.cfg (round robin, no affinity): one client's requests go to both replicas
// in turn and all work. HAProxy is installed by ensureHaproxy() when missing; no HAProxy is
// a failure, not a skip.

const HAPROXY_CFG = fileURLToPath(new URL('../examples/haproxy.cfg', import.meta.url))

/** A port nothing listens on right now (HAProxy cannot bind port 0 and tell us which it got). */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port` (at most 100 tries, 100 ms apart). */
async function listening(port: number, why: () => string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect(port, '127.0.0.1')
      socket.once('connect', () => (socket.destroy(), resolve(true)))
      socket.once('error', () => resolve(false))
    })
    if (ok) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`nothing listens on 127.0.0.1:${port}: ${why()}`)
}

describe('two stateless replicas behind HAProxy', () => {
  const token = newToken()
  const replicas: HttpServer[] = []
  let front: string
  let haproxyLog = ''

  beforeAll(async () => {
    const haproxy = ensureHaproxy()
    const config = writeConfig({ mcpServers: { demo: DEMO_UPSTREAM }, backend: 'quickjs' })
    replicas.push(...(await Promise.all([1, 2].map(() => startHttpServer(['--config', config, '--stateless'], { token })))))
    const port = await freePort()
    const env = {
      ...process.env,
      CORDON_FRONT_PORT: String(port),
      CORDON_REPLICA_1: new URL(replicas[0]!.url).host,
      CORDON_REPLICA_2: new URL(replicas[1]!.url).host,
    }
    // -db: stay in the foreground, logs on stderr; -f: our config file as it is in the repo.
    // Stopped after the file with the replicas (helpers' track).
    const child = track(spawn(haproxy, ['-db', '-f', HAPROXY_CFG], { env, stdio: ['ignore', 'pipe', 'pipe'] }))
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (haproxyLog += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (haproxyLog += chunk))
    await listening(port, () => `haproxy did not start; its output:\n${haproxyLog}`)
    front = `http://127.0.0.1:${port}/mcp`
  }, 600_000)

  it("serves one client's requests from both replicas in turn, and every one works", async () => {
    // The SDK client with a fetch that notes which replica answered (HAProxy's X-Cordon-Replica).
    const served: string[] = []
    const recordingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init)
      served.push(`${init?.method ?? 'GET'} ${response.status} ${response.headers.get('x-cordon-replica') ?? '?'}`)
      return response
    }
    const client = new Client({ name: 'cordon-mcp-haproxy-test', version: '0.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(front), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
        fetch: recordingFetch,
      }),
    )
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('run_javascript')
      // Each replica started its own demo upstream: its pid says which replica ran the program.
      const pids: number[] = []
      for (let i = 0; i < 6; i++) {
        const result = await runJavaScript(client, 'const { sum } = await demo.add({ a: 1, b: 2 }); return [sum, await demo.pid({})]')
        expect(result.isError, result.texts.join('\n')).toBeFalsy()
        const [sum, pid] = JSON.parse(result.texts[0]!) as [number, number]
        expect(sum).toBe(3)
        pids.push(pid)
      }
      expect(new Set(pids).size).toBe(2)
      // Every request answered by a replica: POSTs 200/202, the client's GET for a server stream
      // 405 (a stateless server has none, and the SDK client carries on without it).
      expect(
        served.every((line) => /^(POST 20[02]|GET 405) replica[12]$/.test(line)),
        served.join('\n'),
      ).toBe(true)
      // Round robin: this one client's requests were shared evenly between the two replicas.
      const count = (name: string) => served.filter((line) => line.endsWith(name)).length
      expect(count('replica1') + count('replica2')).toBe(served.length)
      expect(Math.abs(count('replica1') - count('replica2')), served.join('\n')).toBeLessThanOrEqual(1)
    } finally {
      await client.close()
    }
    for (const replica of replicas) expect(replica.stderr()).toContain('stateless Streamable HTTP at')
  })

  it('passes the token check on to the replicas: 401 without it', async () => {
    const response = await fetch(front, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(response.status).toBe(401)
    expect(response.headers.get('x-cordon-replica')).toMatch(/^replica[12]$/)
  })
})
