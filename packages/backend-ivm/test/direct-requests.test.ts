import type { ExecuteRequest } from '@cordon/core'
import { afterAll, describe, expect, test } from 'vitest'
import { createIvmBackend } from '../src/index.js'

/**
 * Requests that did not come from core: a backend author or a test driving `execute` with a
 * script whose top level does work. Small scripts are handed over with isolated-vm's
 * synchronous calls, which hold the host's thread, so their own timeout must end them at the
 * deadline; large ones go asynchronously and the host's timer ends them.
 */
function request(script: string, timeoutMs: number): ExecuteRequest {
  const limits = {
    timeoutMs,
    memoryMb: 32,
    maxOutputBytes: 1_048_576,
    maxToolCalls: 100,
    maxConcurrentToolCalls: 16,
    maxLogEntries: 100,
    maxLogBytes: 1_000,
    maxCodeBytes: 4_000_000,
  }
  return {
    script,
    filename: 'guest.js',
    setup: '{"tools":[],"limits":{"maxOutputBytes":1048576,"maxLogEntries":100,"maxLogBytes":1000},"globals":null}',
    tools: [],
    limits,
    deadline: Date.now() + timeoutMs,
    signal: new AbortController().signal,
    host: { log: () => undefined, callTool: async () => 'null', callToolSync: () => 'null' },
  }
}

const backend = createIvmBackend()
afterAll(() => backend.dispose())

describe('a script whose top level loops', () => {
  test.each([
    ['small (handed over synchronously)', ''],
    ['large (handed over asynchronously)', `/*${'x'.repeat(100_000)}*/`],
  ])('%s ends TIMEOUT at its deadline and the backend keeps serving', async (_, padding) => {
    const started = Date.now()
    const outcome = await backend.execute(request(`${padding}for (;;) {}`, 300))
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } })
    expect(Date.now() - started).toBeLessThan(300 + 1_000)
    const next = await backend.execute(request('(async function () {\nreturn 1 + 1\n})', 5_000))
    expect(next).toMatchObject({ ok: true })
  })
})
