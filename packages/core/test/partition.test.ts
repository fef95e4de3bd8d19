import { describe, expect, it } from 'vitest'
import { createSandbox } from '../src/index.js'
import type { ExecuteRequest, SandboxBackend, SessionRequest } from '../src/backend/index.js'
import { createVmBackend } from '../../conformance/test/fakes/vm-backend.js'

/** A working backend that records the partition of every run and session it is asked for. */
function recording(): { backend: SandboxBackend; runs: (string | undefined)[]; sessions: (string | undefined)[] } {
  const inner = createVmBackend()
  const runs: (string | undefined)[] = []
  const sessions: (string | undefined)[] = []
  const backend: SandboxBackend = {
    ...inner,
    execute(request: ExecuteRequest) {
      runs.push(request.partition)
      return inner.execute(request)
    },
    async openSession(request: SessionRequest) {
      sessions.push(request.partition)
      const session = await inner.openSession!(request)
      return {
        get alive() {
          return session.alive
        },
        execute(run: ExecuteRequest) {
          runs.push(run.partition)
          return session.execute(run)
        },
        memoryUsage: () => session.memoryUsage(),
        dispose: () => session.dispose(),
      }
    },
  }
  return { backend, runs, sessions }
}

describe('partition', () => {
  it('each sandbox has its own by default; a run option or sandbox default names one', async () => {
    const { backend, runs } = recording()
    const a = createSandbox(backend)
    const b = createSandbox(backend)
    const tenant = createSandbox(backend, { partition: 'tenant-7' })
    for (const sandbox of [a, a, b]) expect((await sandbox.run('1')).ok).toBe(true)
    await a.run('1', { partition: 'tenant-9' })
    await tenant.run('1')
    expect(runs[0]).toMatch(/^sandbox-\d+$/)
    expect(runs[1]).toBe(runs[0])
    expect(runs[2]).toMatch(/^sandbox-\d+$/)
    expect(runs[2]).not.toBe(runs[0])
    expect(runs.slice(3)).toEqual(['tenant-9', 'tenant-7'])
  })

  it("a session's engine and runs are in the sandbox's partition, or the session's own", async () => {
    const { backend, runs, sessions } = recording()
    const sandbox = createSandbox(backend)
    const plain = await sandbox.createSession()
    const named = await sandbox.createSession({ partition: 'tenant-1' })
    await plain.run('1')
    await named.run('1')
    expect(sessions[0]).toMatch(/^sandbox-\d+$/)
    expect(sessions[1]).toBe('tenant-1')
    expect(runs).toEqual([sessions[0], 'tenant-1'])
    await sandbox.dispose()
  })

  it('refuses what is not a non-empty string of at most 200 characters', async () => {
    const { backend } = recording()
    const sandbox = createSandbox(backend)
    for (const partition of ['', 'x'.repeat(201), 42, null])
      await expect(sandbox.run('1', { partition: partition as string })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' })
    expect(() => createSandbox(backend, { partition: '' })).toThrow(/partition/)
  })
})
