import { createSandbox, isSandboxError } from '@cordon/core'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
import { describe, expect, it } from 'vitest'
import { lazySandbox } from '../src/index.js'

describe('lazySandbox (how adapters take their sandbox)', () => {
  it('makes its own sandbox over a backend on first use, and ends it on dispose', async () => {
    const lazy = lazySandbox({ backend: createQuickJSBackend() }, 'the test adapter')
    const sandbox = await lazy.get()
    expect(await lazy.get()).toBe(sandbox)
    expect(await sandbox.run('1 + 2')).toMatchObject({ ok: true, value: 3 })
    await lazy.dispose()
    await expect(sandbox.run('1')).rejects.toMatchObject({ code: 'DISPOSED' })
    await expect(lazy.get()).rejects.toMatchObject({ code: 'DISPOSED', message: 'the test adapter was disposed' })
  })

  it("makes its own sandbox with the adapter's defaults", async () => {
    const lazy = lazySandbox({ backend: createQuickJSBackend() }, 'the test adapter', { defaults: { maxOutputBytes: 64 } })
    const sandbox = await lazy.get()
    expect(await sandbox.run("'x'.repeat(100)")).toMatchObject({ ok: false, error: { code: 'OUTPUT_LIMIT' } })
    await lazy.dispose()
  })

  it("uses the caller's sandbox as it is and leaves it open", async () => {
    const own = createSandbox(createQuickJSBackend())
    const lazy = lazySandbox({ sandbox: own }, 'the test adapter')
    expect(await lazy.get()).toBe(own)
    await lazy.dispose()
    expect(await own.run('"still open"')).toMatchObject({ ok: true, value: 'still open' })
    await own.dispose()
  })

  it('refuses a sandbox and a backend together, naming the adapter', () => {
    const own = createSandbox(createQuickJSBackend())
    let thrown: unknown
    try {
      lazySandbox({ sandbox: own, backend: createQuickJSBackend() }, 'the test adapter')
    } catch (error) {
      thrown = error
    }
    expect(isSandboxError(thrown) && thrown.code).toBe('INVALID_OPTIONS')
    expect((thrown as Error).message).toBe('the test adapter: give a sandbox or a backend, not both')
    return own.dispose()
  })
})
