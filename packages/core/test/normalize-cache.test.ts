import { describe, expect, it } from 'vitest'
import { createSandbox } from '../src/index.js'
import { createVmBackend } from '../../conformance/test/fakes/vm-backend.js'

/** Normalization results are reused for code seen before; reuse must never change a result. */
describe('the same code run again', () => {
  it('gives the same value, error position and logs every time', async () => {
    const sandbox = createSandbox(createVmBackend())
    const code = "console.log('hi')\nconst n = 20 + 1\nn * 2"
    const broken = 'const a = 1\nlet = = 2'
    for (let i = 0; i < 3; i++) {
      const ok = await sandbox.run(code)
      expect(ok).toMatchObject({ ok: true, value: 42, logs: [{ level: 'log', message: 'hi' }] })
      const failed = await sandbox.run(broken)
      expect(failed).toMatchObject({ ok: false, error: { code: 'SYNTAX_ERROR', line: 2 } })
    }
    await sandbox.dispose()
  })

  it('keeps one-off runs and session runs apart: only a session persists top-level names', async () => {
    const sandbox = createSandbox(createVmBackend())
    const declare = 'const kept = 7'
    await sandbox.run(declare)
    const session = await sandbox.createSession()
    await session.run(declare)
    expect(await session.run('kept')).toMatchObject({ ok: true, value: 7 })
    // And the other way round: the session's form is not reused by a one-off run.
    const other = createSandbox(createVmBackend())
    expect(await other.run(declare)).toMatchObject({ ok: true })
    expect(await other.run('typeof kept')).toMatchObject({ ok: true, value: 'undefined' })
    await sandbox.dispose()
    await other.dispose()
  })

  it('runs long programs (past the reuse size) as usual', async () => {
    const sandbox = createSandbox(createVmBackend())
    const long = `const s = ${JSON.stringify('x'.repeat(40_000))}\ns.length`
    for (let i = 0; i < 2; i++) expect(await sandbox.run(long)).toMatchObject({ ok: true, value: 40_000 })
    await sandbox.dispose()
  })
})
