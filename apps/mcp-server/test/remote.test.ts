import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { callTool, connect, eventually, newToken, track, runJavaScript, runServer, writeConfig, type Connection } from './helpers.js'

// Remote upstreams: the demo tools served over HTTP on 127.0.0.1 by test/fixtures/remote-upstream.mjs,
// which requires a bearer token; cordon-mcp gets it through `headers` with ${REMOTE_TOKEN}.

const REMOTE = fileURLToPath(new URL('./fixtures/remote-upstream.mjs', import.meta.url))
const TOKEN = newToken()

interface Remote {
  port: number
  stop(): Promise<void>
}

/** Starts the remote fixture (port 0: any free one) and waits until it listens. */
async function startRemote(port = 0): Promise<Remote> {
  const child = track(
    spawn(process.execPath, [REMOTE, String(port)], {
      env: { ...process.env, REMOTE_TOKEN: TOKEN },
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  )
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  // SIGKILL: the tests stop it the way a crash would.
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  }
  let stderr = ''
  const listening = await new Promise<number>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
      const match = /listening on (\d+)/.exec(stderr)
      if (match !== null) resolve(Number(match[1]))
    })
    child.on('exit', (code) => reject(new Error(`the remote fixture exited (${code}): ${stderr}`)))
  })
  return { port: listening, stop }
}

describe('remote upstreams', () => {
  let remote: Remote
  let server: Connection
  /** A port where nothing listens when cordon-mcp starts: the "late" upstream comes up there afterwards. */
  let latePort: number

  beforeAll(async () => {
    remote = await startRemote()
    const late = await startRemote()
    latePort = late.port
    await late.stop()
    const base = `http://127.0.0.1:${remote.port}`
    const auth = { Authorization: 'Bearer ${REMOTE_TOKEN}' }
    const config = {
      backend: 'quickjs',
      mcpServers: {
        demo: { url: `${base}/mcp`, headers: auth, callTimeoutMs: 1_000, startupTimeoutMs: 10_000 },
        legacy: { url: `${base}/sse`, headers: auth, startupTimeoutMs: 10_000 },
        denied: { type: 'http', url: `${base}/mcp`, headers: { Authorization: 'Bearer not-the-token' } },
        late: { url: `http://127.0.0.1:${latePort}/mcp`, headers: auth },
      },
    }
    server = await connect(writeConfig(config), 'stdio', { env: { REMOTE_TOKEN: TOKEN } })
  })
  afterAll(async () => {
    await server?.close()
  })

  const description = async () => (await server.client.listTools()).tools.find((tool) => tool.name === 'run_javascript')!.description!

  it('are called over Streamable HTTP, or over HTTP+SSE when the server is older', async () => {
    const result = await runJavaScript(
      server.client,
      'const [a, b] = await Promise.all([demo.add({ a: 1, b: 2 }), legacy.add({ a: 3, b: 4 })])\nreturn [a.sum, b.sum]',
    )
    expect(result.isError).toBeFalsy()
    expect(JSON.parse(result.texts[0]!)).toEqual([3, 7])
    expect(server.stderr()).toContain(
      'upstream server "legacy" does not speak Streamable HTTP (HTTP 405); connected with the older HTTP+SSE transport',
    )
    expect(await description()).toContain('declare namespace legacy {')
  })

  it('one that refuses the token is left out, and the description says why', async () => {
    const text = await description()
    expect(text).toContain(
      `- denied: its server failed to start (cannot reach http://127.0.0.1:${remote.port}/mcp: HTTP 401 (check its "headers"`,
    )
    expect(server.stderr()).toContain('upstream server "denied" failed to start, continuing without it')
  })

  it('a call that takes longer than callTimeoutMs fails in the guest, and the upstream stays available', async () => {
    const result = await runJavaScript(
      server.client,
      'try { await demo.slow({ ms: 20000 }); return "answered" } catch (error) { return error.message }',
    )
    expect(JSON.parse(result.texts[0]!)).toMatch(/timed out/i)
    expect(await description()).not.toContain('unavailable right now')
  })

  it('one that goes down is marked unavailable in the description and the guest error, and comes back when it recovers', async () => {
    const { port } = remote
    await remote.stop()

    const failed = await runJavaScript(
      server.client,
      'try { await demo.add({ a: 1, b: 1 }); return "answered" } catch (error) { return error.message }',
    )
    expect(JSON.parse(failed.texts[0]!)).toMatch(
      /^the upstream server "demo" is unavailable \(.+\); cordon-mcp keeps reconnecting, try again later$/,
    )
    expect(await description()).toMatch(
      new RegExp(`- demo: unavailable right now, calls to its tools throw \\(http://127\\.0\\.0\\.1:${port}/mcp is unreachable`),
    )
    expect(server.stderr()).toContain('upstream server "demo" is unavailable')

    // Back by itself (the background reconnect), then the older SSE server on its next call
    // (its session is gone, so the call goes again on a new one).
    remote = await startRemote(port)
    await eventually(() => server.stderr().includes('upstream server "demo" is back (streamable-http)'), 'the background reconnect', 20_000)
    expect(await description()).not.toContain('- demo: unavailable')
    const back = await runJavaScript(
      server.client,
      'const [a, b] = await Promise.all([demo.add({ a: 20, b: 22 }), legacy.add({ a: 1, b: 1 })])\nreturn [a.sum, b.sum]',
    )
    expect(back.isError, back.texts.join('\n') + server.stderr()).toBeFalsy()
    expect(JSON.parse(back.texts[0]!)).toEqual([42, 2])
    expect(await description()).not.toContain('unavailable right now')
  })

  it('one that is unreachable at startup is listed as such, and joins with its tools once it is up', async () => {
    expect(await description()).toMatch(/- late: its server failed to start \(cannot reach .*; cordon-mcp keeps trying to connect\)/)
    const before = await callTool(server.client, 'get_declarations', { namespace: 'late' })
    expect(before.isError).toBe(true)

    await startRemote(latePort)
    await eventually(
      () => server.stderr().includes('upstream server "late" is reachable now: its 7 tools are available'),
      'the late upstream to connect',
      20_000,
    )
    expect(await description()).not.toContain('- late:')
    const declared = await callTool(server.client, 'get_declarations', { namespace: 'late' })
    expect(declared.texts[0]).toContain('declare namespace late {')
    const result = await runJavaScript(server.client, '(await late.add({ a: 5, b: 6 })).sum')
    expect(result.texts[0]).toBe('11')
  })
})

describe('remote upstream entries cordon-mcp cannot use', () => {
  it('are refused with one line per problem', async () => {
    const file = writeConfig({
      mcpServers: {
        both: { command: 'node', url: 'http://127.0.0.1:1/mcp' },
        stdioHeaders: { command: 'node', headers: { A: 'b' } },
        remoteArgs: { url: 'http://127.0.0.1:1/mcp', args: ['x'] },
        sseWithoutUrl: { type: 'sse', command: 'node' },
      },
    })
    const run = await runServer(['--config', file])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('- mcpServers.both.url: give either "command" (stdio) or "url" (HTTP), not both')
    expect(run.stderr).toContain('- mcpServers.stdioHeaders.headers: "headers" are for an upstream reached over HTTP ("url")')
    expect(run.stderr).toContain('- mcpServers.remoteArgs.args: "args" is for an upstream started with "command"; this one has "url"')
    expect(run.stderr).toContain('- mcpServers.sseWithoutUrl.type: "type": "sse" needs "url"')
  })

  it('a url that is not http(s), or a header with an unset ${VAR}, stops a required upstream with the reason', async () => {
    const ftp = await runServer([
      '--config',
      writeConfig({ backend: 'quickjs', mcpServers: { files: { url: 'ftp://127.0.0.1/mcp', required: true } } }),
    ])
    expect(ftp.code).toBe(1)
    expect(ftp.stderr).toContain('upstream server "files" failed to start: its url "ftp://127.0.0.1/mcp" is not http: or https:')
    const unset = await runServer([
      '--config',
      writeConfig({
        backend: 'quickjs',
        mcpServers: {
          gh: { url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer ${CORDON_MCP_TEST_UNSET}' }, required: true },
        },
      }),
    ])
    expect(unset.code).toBe(1)
    expect(unset.stderr).toContain('headers.Authorization uses ${CORDON_MCP_TEST_UNSET}, which is not set')
  })
})
