import { afterEach, describe, expect, it } from 'vitest'
import { ERROR_CODES, LIMIT_ERROR_CODES, createSandbox, type Sandbox, type SandboxDefaults, type ToolSet } from '../src/index.js'
import type { SandboxBackend } from '../src/backend/index.js'
import { createVmBackend } from '../../conformance/test/fakes/vm-backend.js'

const opened: Sandbox[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((sandbox) => sandbox.dispose()))
})

/** A sandbox over the reference backend that counts what reaches `execute`. */
function countingSandbox(defaults: SandboxDefaults) {
  const backend = createVmBackend()
  const executed: string[] = []
  const counting: SandboxBackend = {
    ...backend,
    execute: (request) => {
      executed.push(request.script)
      return backend.execute(request)
    },
    dispose: () => backend.dispose(),
  }
  const sandbox = createSandbox(counting, defaults)
  opened.push(sandbox)
  return { sandbox, executed }
}

/** A tool that answers on `release()`; `started` resolves once it is called. */
function holding() {
  let release!: () => void
  let markStarted!: () => void
  const started = new Promise<void>((resolve) => (markStarted = resolve))
  const released = new Promise<void>((resolve) => (release = resolve))
  const tools: ToolSet = { 'hold.wait': { execute: () => (markStarted(), released) } }
  return { tools, started, release }
}

describe('admission control', () => {
  it('BUSY is an error code of its own, not a limit a run went over', () => {
    expect(ERROR_CODES).toContain('BUSY')
    expect(LIMIT_ERROR_CODES).not.toContain('BUSY')
  })

  it('a refused run never reaches the backend', async () => {
    const { sandbox, executed } = countingSandbox({ maxConcurrentRuns: 1 })
    const hold = holding()
    const first = sandbox.run('await hold.wait(); "first"', { tools: hold.tools })
    await hold.started
    const refused = await sandbox.run('"refused"')
    expect(refused).toMatchObject({ ok: false, error: { code: 'BUSY' } })
    if (!refused.ok) expect(refused.error.message).toMatch(/maxConcurrentRuns \(1\)/)
    hold.release()
    expect(await first).toMatchObject({ ok: true, value: 'first' })
    expect(executed).toHaveLength(1)
  })

  it('resumed runs take a place like any run', async () => {
    const { sandbox } = countingSandbox({ maxConcurrentRuns: 1, durable: { keys: ['k'.repeat(32)] } })
    const ask: ToolSet = { 'ask.human': { execute: (_args, ctx) => ctx.interrupt('?') } }
    const paused = await sandbox.run('return await ask.human()', { tools: ask })
    expect(paused.interrupted).toBe(true)
    const hold = holding()
    const busy = sandbox.run('await hold.wait()', { tools: hold.tools })
    await hold.started
    const resumed = await sandbox.resume(paused.interrupted ? paused.continuation : '', { answer: 'yes', tools: ask })
    expect(resumed).toMatchObject({ ok: false, error: { code: 'BUSY' } })
    hold.release()
    await busy
    expect(await sandbox.resume(paused.interrupted ? paused.continuation : '', { answer: 'yes', tools: ask })).toMatchObject({
      ok: true,
      value: 'yes',
    })
  })

  it('a backend that throws gives the place back', async () => {
    const backend = createVmBackend()
    const sandbox = createSandbox(
      {
        ...backend,
        execute: () => Promise.reject(new Error('boom')),
        dispose: () => backend.dispose(),
      },
      { maxConcurrentRuns: 1 },
    )
    opened.push(sandbox)
    expect(await sandbox.run('1')).toMatchObject({ ok: false, error: { code: 'BACKEND_CRASHED' } })
    expect(await sandbox.run('1')).toMatchObject({ ok: false, error: { code: 'BACKEND_CRASHED' } })
  })

  it('explains where maxConcurrentRuns belongs when a run is given it', async () => {
    const { sandbox } = countingSandbox({})
    await expect(sandbox.run('1', { maxConcurrentRuns: 2 } as never)).rejects.toThrow(/createSandbox\(backend, \{ maxConcurrentRuns \}\)/)
    expect(() => createSandbox(createVmBackend(), { maxQueueMs: 5 })).toThrow(/maxQueueMs needs maxConcurrentRuns/)
  })
})
