import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createSandbox } from '@cordon/core'
import { describe, expect, it } from 'vitest'
import { createSubprocessBackend } from '../src/index.js'
import { descendants, engineChildren, running, waitFor } from './helpers.js'

const linux = process.platform === 'linux'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The engine children started since this call: children of earlier tests may still be exiting on
 * a loaded machine, and are not this test's to count.
 */
function newEngineChildren(): () => number[] {
  const before = new Set(engineChildren())
  return () => engineChildren().filter((pid) => !before.has(pid))
}

describe.runIf(linux).each(['isolated-vm', 'quickjs'] as const)('engine children (%s)', (engine) => {
  it('a child is replaced after runsPerChildLifetime runs', async () => {
    const backend = createSubprocessBackend({ engine, runsPerChildLifetime: 2, maxChildren: 1 })
    const sandbox = createSandbox(backend)
    try {
      const seen = new Set<number>()
      for (let i = 0; i < 6; i++) {
        const result = await sandbox.run(String(i))
        expect(result.ok && result.value).toBe(i)
        for (const pid of engineChildren()) seen.add(pid)
      }
      expect(seen.size).toBeGreaterThanOrEqual(3)
    } finally {
      await sandbox.dispose()
    }
  })

  it('dispose() ends every engine child, busy or idle', async () => {
    const ours = newEngineChildren()
    const backend = createSubprocessBackend({ engine, runsPerChild: 1, maxChildren: 2 })
    const sandbox = createSandbox(backend)
    await backend.warm()
    const busy = [sandbox.run('for (;;) {}', { timeoutMs: 60_000 }), sandbox.run('for (;;) {}', { timeoutMs: 60_000 })]
    await waitFor(() => ours().length >= 2, 10_000)
    const below = descendants(process.pid)
    expect(ours().length).toBe(2)
    await sandbox.dispose()
    expect(await waitFor(() => below.every((pid) => !running(pid)), 3_000)).toBe(true)
    for (const result of await Promise.all(busy)) expect(result.ok).toBe(false)
  })

  it('engine children die with a host that is SIGKILLed, busy in a loop or waiting on a tool', async () => {
    const host = spawn(process.execPath, [fileURLToPath(new URL('./fixtures/engine-host.mjs', import.meta.url)), engine], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    await new Promise<void>((resolve, reject) => {
      host.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('READY') && resolve())
      host.on('exit', (code) => reject(new Error(`the fixture host exited early (${code})`)))
    })
    // READY comes 500 ms after the runs started; a loaded machine may take longer to fork the second child.
    await waitFor(() => engineChildren(host.pid).length >= 2, 10_000)
    const below = descendants(host.pid!)
    expect(engineChildren(host.pid).length).toBe(2)
    process.kill(host.pid!, 'SIGKILL')
    expect(await waitFor(() => below.every((pid) => !running(pid)), 5_000)).toBe(true)
  })

  it('synchronous tools block only their own child, and the frames that arrive meanwhile are all delivered', async () => {
    const ours = newEngineChildren()
    const backend = createSubprocessBackend({ engine, runsPerChild: 4, maxChildren: 1 })
    const sandbox = createSandbox(backend)
    try {
      let syncCalls = 0
      const tools = {
        'clock.tick': { sync: true, execute: () => ++syncCalls },
        'a.echo': { execute: async (n: number) => n },
      }
      // One child serves both runs: the async run's answers and logs reach it while the other blocks.
      const blocking = sandbox.run('let s = 0; for (let i = 0; i < 300; i++) s += clock.tick() > 0 ? 1 : 0; s', {
        tools,
        maxToolCalls: 1000,
      })
      const flowing = sandbox.run('let s = 0; for (let i = 0; i < 300; i++) { console.log(i); s += await a.echo(i) } s', {
        tools,
        maxToolCalls: 1000,
        maxLogEntries: 1000,
      })
      const [sync, async_] = await Promise.all([blocking, flowing])
      expect(sync.ok && sync.value).toBe(300)
      expect(async_.ok && async_.value).toBe((299 * 300) / 2)
      expect(async_.logs).toHaveLength(300)
      expect(ours()).toHaveLength(1)
    } finally {
      await sandbox.dispose()
    }
  })
})

describe.runIf(linux)('partitions', () => {
  const waitingRun = (sandbox: ReturnType<typeof createSandbox>, partition?: string) =>
    sandbox.run('await t.later()', {
      timeoutMs: 20_000,
      tools: { 't.later': { execute: () => sleep(800).then(() => 'answered') } },
      ...(partition === undefined ? {} : { partition }),
    })

  it('two sandboxes over one backend never share an engine child', async () => {
    const ours = newEngineChildren()
    const backend = createSubprocessBackend({ engine: 'isolated-vm', runsPerChild: 4 })
    const a = createSandbox(backend)
    const b = createSandbox(backend)
    try {
      const runs = [waitingRun(a), waitingRun(b), waitingRun(a), waitingRun(b)]
      // Children stay in the pool after their runs: wait for them however slow the fork, then count.
      await waitFor(() => ours().length >= 2, 10_000)
      expect(ours().length).toBe(2)
      for (const result of await Promise.all(runs)) expect(result.ok && result.value).toBe('answered')
    } finally {
      await a.dispose()
    }
  })

  it('runs of one partition share a child; another partition gets its own, even at maxChildren', async () => {
    const ours = newEngineChildren()
    const backend = createSubprocessBackend({ engine: 'isolated-vm', runsPerChild: 4, maxChildren: 1 })
    const sandbox = createSandbox(backend)
    try {
      const tenantA = [waitingRun(sandbox, 'tenant-a'), waitingRun(sandbox, 'tenant-a')]
      await waitFor(() => ours().length >= 1, 10_000)
      expect(ours().length).toBe(1)
      const first = ours()[0]!
      for (const result of await Promise.all(tenantA)) expect(result.ok && result.value).toBe('answered')
      // At maxChildren 1, tenant B's run replaces tenant A's idle child rather than join it.
      const tenantB = await waitingRun(sandbox, 'tenant-b')
      expect(tenantB.ok && tenantB.value).toBe('answered')
      // The replaced child may take a moment to exit on a loaded machine.
      expect(await waitFor(() => !running(first), 5_000)).toBe(true)
      const now = ours()
      expect(now.length).toBe(1)
      expect(now[0]).not.toBe(first)
    } finally {
      await sandbox.dispose()
    }
  })

  it("a new partition at maxChildren waits rather than end a child holding another partition's session", async () => {
    const backend = createSubprocessBackend({ engine: 'isolated-vm', maxChildren: 1 })
    const a = createSandbox(backend)
    const b = createSandbox(backend)
    try {
      const session = await a.createSession()
      expect((await session.run('globalThis.kept = 41; kept')).ok).toBe(true)
      const waited = await b.run('1', { timeoutMs: 800 })
      expect(!waited.ok && waited.error.code).toBe('TIMEOUT')
      const again = await session.run('kept + 1')
      expect(again.ok && again.value).toBe(42)
    } finally {
      await a.dispose()
    }
  })

  it('refuses a partition that is not a non-empty string', async () => {
    const sandbox = createSandbox(createSubprocessBackend({ engine: 'isolated-vm' }))
    try {
      await expect(sandbox.run('1', { partition: '' })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' })
      await expect(sandbox.run('1', { partition: 7 as unknown as string })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' })
    } finally {
      await sandbox.dispose()
    }
  })
})
