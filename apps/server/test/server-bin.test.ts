import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { createRemoteBackend } from '@cordon/backend-remote'
import { createSandbox } from '@cordon/core'
import { expect, it } from 'vitest'
import { SERVER_MAIN } from './support/fleet.js'

const TOKEN = 'bin-test-token-0123456789'

it('cordon-server will not start without a token of 16 characters or more', () => {
  for (const token of [undefined, 'short']) {
    const env = { ...process.env }
    delete env.CORDON_SERVER_TOKEN
    if (token !== undefined) env.CORDON_SERVER_TOKEN = token
    const result = spawnSync(process.execPath, [SERVER_MAIN, '--port', '0'], { env, encoding: 'utf8' })
    expect(result.status).toBe(2)
    expect(result.stderr).toMatch(/CORDON_SERVER_TOKEN/)
  }
})

it('cordon-server refuses a bad flag with a usage error', () => {
  const result = spawnSync(process.execPath, [SERVER_MAIN, '--port', 'many'], {
    env: { ...process.env, CORDON_SERVER_TOKEN: TOKEN },
    encoding: 'utf8',
  })
  expect(result.status).not.toBe(0)
  expect(result.stderr).toMatch(/--port/)
})

it('on SIGTERM it finishes the run in flight, logs it under the caller’s run id, and exits 0', async () => {
  const child = spawn(process.execPath, [SERVER_MAIN, '--port', '0', '--backend', 'quickjs'], {
    env: { ...process.env, CORDON_SERVER_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const lines: Record<string, unknown>[] = []
  let rest = ''
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString('utf8')).split('\n')
    rest = parts.pop() ?? ''
    lines.push(...parts.filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Record<string, unknown>))
  })
  await expect.poll(() => lines.find((line) => line.msg === 'listening'), { timeout: 20_000 }).toBeDefined()
  const listening = lines.find((line) => line.msg === 'listening')
  const url = String(listening?.url)
  // It says which backend it chose and why (here: forced by --backend).
  expect(listening).toMatchObject({ backend: 'quickjs', why: expect.stringContaining('quickjs') })
  await expect.poll(async () => (await fetch(`${url}/readyz`)).status, { timeout: 20_000 }).toBe(200)
  const sandbox = createSandbox(await createRemoteBackend({ url, token: TOKEN }))
  const slow = { 't.slow': { execute: () => new Promise((resolve) => setTimeout(() => resolve('done'), 500)) } }
  const running = sandbox.run('await t.slow()', { tools: slow })
  await expect.poll(() => lines.some((line) => line.msg === 'run started')).toBe(true)
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  const result = await running
  expect(result).toMatchObject({ ok: true, value: 'done' })
  expect(((await exited) as [number | null])[0]).toBe(0)
  expect(lines).toContainEqual(expect.objectContaining({ msg: 'run ended', runId: result.stats.runId, code: 'OK' }))
  expect(lines.map((line) => line.msg)).toEqual(expect.arrayContaining(['draining', 'server closed']))
  await sandbox.dispose()
})
