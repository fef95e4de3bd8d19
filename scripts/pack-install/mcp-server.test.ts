// cordon-mcp as its tarball installs it: `pnpm pack` of the (private, unpublished) app, installed
// with plain npm next to this run's @cordon/* tarballs, then the `cordon-mcp` bin started over
// Streamable HTTP on 127.0.0.1 with a token and driven by the MCP SDK's client from that install.
import { execSync, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { cpSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { pnpmCommand } from '../pnpm.mjs'
import { type Consumer, installConsumer, userEnv } from './consumer.js'
import { readTarball } from './tarball.js'

const { repo, root } = inject('packInstall')
const app = join(repo, 'apps', 'mcp-server')
const token = randomBytes(24).toString('hex')

// A client written the way a user of the SDK would, run from the consumer project.
const CLIENT = `
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
const [url, token] = process.argv.slice(2)
const client = new Client({ name: 'pack-install', version: '0.0.0' })
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: 'Bearer ' + token } } }))
const text = (result) => ({ isError: result.isError === true, text: result.content.map((block) => block.text).join('\\n') })
const run = (code, extra = {}) => client.callTool({ name: 'run_javascript', arguments: { code, ...extra } }).then(text)
const tools = (await client.listTools()).tools.map((tool) => tool.name).sort()
const parallel = await run('const [a, b] = await Promise.all([demo.add({ a: 1, b: 2 }), demo.add({ a: 3, b: 4 })]); a.sum + b.sum')
const looping = await run('while (true) {}', { timeoutMs: 300 })
const after = await run('"still serving"')
await client.close()
const unauthorized = (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' })).status
console.log(JSON.stringify({ tools, parallel, looping, after, unauthorized }))
`

describe('cordon-mcp from its tarball, over HTTP', () => {
  let consumer: Consumer
  let server: ChildProcess | undefined
  let stderr = ''

  beforeAll(async () => {
    const packDir = join(root, 'app-tarballs')
    mkdirSync(packDir, { recursive: true })
    const out = execSync(`${pnpmCommand()} pack --pack-destination "${packDir}"`, { cwd: app, encoding: 'utf8' })
    const tarball = out.trim().split('\n').at(-1)!.trim()
    expect(readTarball(tarball).files).toContain('dist/server.js')
    // --ignore-scripts: isolated-vm is not compiled (backend-ivm.test.ts does that); the
    // config below asks for QuickJS.
    consumer = await installConsumer('mcp-server', {
      packages: ['@cordon/core', '@cordon/select', '@cordon/backend-quickjs', '@cordon/backend-subprocess', '@cordon/backend-ivm'],
      registry: [tarball],
      ignoreScripts: true,
    })
    // The demo upstream from the repo's tests; it imports the SDK and zod cordon-mcp brought along.
    for (const file of ['upstream-server.mjs', 'demo-tools.mjs']) cpSync(join(app, 'test', 'fixtures', file), join(consumer.dir, file))
    writeFileSync(
      join(consumer.dir, 'cordon-mcp.json'),
      JSON.stringify({ backend: 'quickjs', mcpServers: { demo: { command: 'node', args: ['./upstream-server.mjs'] } } }),
    )
    writeFileSync(join(consumer.dir, 'client.mjs'), CLIENT)
  })

  afterAll(async () => {
    if (server !== undefined && server.exitCode === null) {
      server.kill('SIGKILL')
      await new Promise((resolve) => server!.once('exit', resolve))
    }
  })

  it('starts with --http on 127.0.0.1 and serves the SDK client with the token', async () => {
    const bin = join(consumer.dir, 'node_modules', '.bin', 'cordon-mcp')
    server = spawn(bin, ['--config', 'cordon-mcp.json', '--http', '127.0.0.1:0'], {
      cwd: consumer.dir,
      env: userEnv({ CORDON_MCP_TOKEN: token }),
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    server.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const exited = new Promise<number | null>((resolve) => server!.once('exit', (code) => resolve(code)))
    const url = await Promise.race([
      (async () => {
        for (let i = 0; i < 600; i++) {
          const match = /Streamable HTTP at (http:\/\/[^\s,]+)/.exec(stderr)
          if (match) return match[1]!
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
        throw new Error(`cordon-mcp did not get ready within 60 s:\n${stderr}`)
      })(),
      exited.then((code) => {
        throw new Error(`cordon-mcp exited (${code}) before it was ready:\n${stderr}`)
      }),
    ])
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    expect(stderr).toContain('backend quickjs, 7 tools from 1 upstream servers')

    const r = await consumer.run('node', ['client.mjs', url, token])
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({
      tools: ['get_declarations', 'run_javascript', 'search_tools'],
      parallel: { isError: false, text: '10' },
      looping: { isError: true, text: expect.stringMatching(/^TIMEOUT: /) },
      after: { isError: false, text: '"still serving"' },
      unauthorized: 401,
    })

    server.kill('SIGTERM')
    expect(await exited).toBe(0)
  })
})
