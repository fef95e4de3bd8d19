import { afterAll, describe, expect, test } from 'vitest'
import { createIvmBackend } from '../src/index.js'
import { rawRequest } from './helpers.js'

/**
 * Requests that did not come from core: a backend author or a test driving `execute` with a
 * script whose top level does work. Small scripts are handed over with isolated-vm's
 * synchronous calls, which hold the host's thread, so their own timeout must end them at the
 * deadline; large ones go asynchronously and the host's timer ends them.
 */
const backend = createIvmBackend()
afterAll(() => backend.dispose())

describe('a script whose top level loops', () => {
  test.each([
    ['small (handed over synchronously)', ''],
    ['large (handed over asynchronously)', `/*${'x'.repeat(100_000)}*/`],
  ])('%s ends TIMEOUT at its deadline and the backend keeps serving', async (_, padding) => {
    const started = Date.now()
    const outcome = await backend.execute(rawRequest('', { script: `${padding}for (;;) {}`, timeoutMs: 300 }))
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } })
    expect(Date.now() - started).toBeLessThan(300 + 1_000)
    const next = await backend.execute(rawRequest('return 1 + 1'))
    expect(next).toMatchObject({ ok: true })
  })
})
