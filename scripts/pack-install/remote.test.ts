// cordon-server and @cordon/backend-remote as npm installs them from this run's tarballs: the
// `cordon-server` bin started on 127.0.0.1 with a token, and a caller's program run end to end
// through the remote backend, its tool running in the caller.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Consumer, installConsumer, userEnv } from './consumer.js'

const token = randomBytes(24).toString('hex')

const CALLER = `
import { createSandbox } from '@cordon/core'
import { createRemoteBackend } from '@cordon/backend-remote'
const [url, token] = process.argv.slice(2)
const backend = await createRemoteBackend({ url, token })
const sandbox = createSandbox(backend)
const tools = { 'host.add': { execute: ({ a, b }) => a + b } }
const result = await sandbox.run('console.log("remote"); await host.add({ a: 40, b: 2 })', { tools })
const spin = await sandbox.run('for (;;) {}', { timeoutMs: 300 })
const refused = await createRemoteBackend({ url, token: 'not-the-token' }).catch((error) => error.code)
await sandbox.dispose()
console.log(JSON.stringify({ server: backend.server.backend, result, spin: spin.error.code, refused }))
`

describe('cordon-server and @cordon/backend-remote from their tarballs', () => {
  let consumer: Consumer
  let server: ChildProcess | undefined

  beforeAll(async () => {
    // --ignore-scripts: isolated-vm is not compiled here (backend-ivm.test.ts does that); the
    // server picks the strongest backend that works without it.
    consumer = await installConsumer('remote', {
      packages: [
        '@cordon/server',
        '@cordon/backend-remote',
        '@cordon/core',
        '@cordon/select',
        '@cordon/backend-quickjs',
        '@cordon/backend-subprocess',
        '@cordon/backend-ivm',
      ],
      ignoreScripts: true,
    })
    writeFileSync(join(consumer.dir, 'caller.mjs'), CALLER)
  })

  afterAll(async () => {
    if (server !== undefined && server.exitCode === null) {
      server.kill('SIGKILL')
      await new Promise((resolve) => server!.once('exit', resolve))
    }
  })

  it('installs the cordon-server bin', () => {
    expect(existsSync(join(consumer.dir, 'node_modules', '.bin', 'cordon-server'))).toBe(true)
  })

  it('serves a caller whose tool stays in the caller, ends a spin TIMEOUT, and refuses a wrong token', async () => {
    server = spawn(join(consumer.dir, 'node_modules', '.bin', 'cordon-server'), ['--port', '0'], {
      cwd: consumer.dir,
      env: userEnv({ CORDON_SERVER_TOKEN: token }),
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let stdout = ''
    server.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    let url: string | undefined
    for (let i = 0; i < 600 && url === undefined; i++) {
      await new Promise((resume) => setTimeout(resume, 50))
      const listening = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg: string; url?: string })
        .find((entry) => entry.msg === 'listening')
      url = listening?.url
    }
    expect(url, stdout).toBeDefined()
    for (let i = 0; i < 600; i++) {
      if ((await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200) break
      await new Promise((resume) => setTimeout(resume, 50))
    }
    const r = await consumer.run('node', ['caller.mjs', url!, token])
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as Record<string, unknown>
    // The server's `listening` line says why it chose its backend.
    expect(out, stdout).toMatchObject({
      server: 'subprocess',
      result: { ok: true, value: 42, logs: [{ level: 'log', message: 'remote' }], stats: { backend: 'remote' } },
      spin: 'TIMEOUT',
      refused: 'BACKEND_UNAVAILABLE',
    })
  })
})
