import { afterAll, describe, expect, it } from 'vitest'
import { createSandbox, isSandboxError, SandboxError } from '../src/index.js'
import { createVmBackend } from '../../conformance/test/fakes/vm-backend.js'

const sandbox = createSandbox(createVmBackend())
afterAll(() => sandbox.dispose())

describe('run results', () => {
  it('returns the last expression value with stats', async () => {
    const r = await sandbox.run('const a = [1, 2]; a.map((x) => x * 2)')
    expect(r).toMatchObject({ ok: true, value: [2, 4], logs: [] })
    expect(r.stats).toMatchObject({ backend: 'vm-reference', toolCalls: 0, logsDropped: 0 })
    expect(r.stats.wallMs).toBeGreaterThanOrEqual(0)
  })

  it('reports guest errors as data with the user line', async () => {
    const r = await sandbox.run('const x = 1\n\nthrow new TypeError("bad " + x)')
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.error).toMatchObject({ code: 'RUNTIME_ERROR', name: 'TypeError', message: 'bad 1', line: 3 })
  })

  it('reports syntax errors with line and column', async () => {
    const r = await sandbox.run('const a = 1\nconst = 2')
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error).toMatchObject({ code: 'SYNTAX_ERROR', line: 2 })
  })
})

describe('host misuse throws typed errors', () => {
  it('rejects unknown options with a hint', async () => {
    await expect(sandbox.run('1', { timeout: 5 } as never)).rejects.toThrow(/did you mean timeoutMs/)
  })

  it('rejects out-of-range limits and non-string code', async () => {
    await expect(sandbox.run('1', { memoryMb: 0 })).rejects.toSatisfy((e) => isSandboxError(e, 'INVALID_OPTIONS'))
    await expect(sandbox.run(42 as never)).rejects.toSatisfy((e) => isSandboxError(e, 'INVALID_OPTIONS'))
  })

  it('rejects tool names that are not identifiers or shadow built-ins', async () => {
    const execute = () => 1
    await expect(sandbox.run('1', { tools: { 'bad-name': { execute } } })).rejects.toThrow(/plain identifier/)
    await expect(sandbox.run('1', { tools: { 'console.x': { execute } } })).rejects.toThrow(/built-in/)
    await expect(sandbox.run('1', { tools: { a: { execute }, 'a.b': { execute } } })).rejects.toThrow(/namespace/)
  })

  it('rejects globals that cannot cross or collide', async () => {
    await expect(sandbox.run('1', { globals: { f: () => 1 } })).rejects.toThrow(/function/)
    await expect(sandbox.run('1', { globals: { JSON: 1 } })).rejects.toThrow(/built-in/)
  })

  it('throws DISPOSED after dispose', async () => {
    const s = createSandbox(createVmBackend())
    await s.dispose()
    await s.dispose()
    const error = await s.run('1').catch((e: unknown) => e)
    expect(isSandboxError(error, 'DISPOSED')).toBe(true)
    expect(error).toBeInstanceOf(SandboxError)
  })

  it('rejects a backend of another specification version', () => {
    const backend = { ...createVmBackend(), specificationVersion: 'v2' }
    expect(() => createSandbox(backend as never)).toThrow(/specification v2/)
  })
})

describe('limits resolved from defaults, environment and options', () => {
  it('lets run options override sandbox defaults', async () => {
    const s = createSandbox(createVmBackend(), { maxLogEntries: 1 })
    const r = await s.run('console.log(1); console.log(2)')
    expect(r.logs).toHaveLength(1)
    expect(r.stats.logsDropped).toBe(1)
    const r2 = await s.run('console.log(1); console.log(2)', { maxLogEntries: 5 })
    expect(r2.logs).toHaveLength(2)
  })

  it('reads CORDON_* variables and refuses malformed ones', async () => {
    process.env.CORDON_MAX_LOG_ENTRIES = '0'
    try {
      const r = await createSandbox(createVmBackend()).run('console.log(1)')
      expect(r.logs).toHaveLength(0)
      process.env.CORDON_MAX_LOG_ENTRIES = 'lots'
      expect(() => createSandbox(createVmBackend())).toThrow(/CORDON_MAX_LOG_ENTRIES/)
    } finally {
      delete process.env.CORDON_MAX_LOG_ENTRIES
    }
  })

  it('ends oversized code with CODE_LIMIT', async () => {
    const r = await sandbox.run('1 + 1 // padding', { maxCodeBytes: 5 })
    expect(r.ok === false && r.error.code).toBe('CODE_LIMIT')
  })

  it('reports UNSUPPORTED for an explicit memory limit the backend cannot enforce', async () => {
    const r = await sandbox.run('1', { memoryMb: 64 })
    expect(r.ok === false && r.error.code).toBe('UNSUPPORTED')
  })
})
