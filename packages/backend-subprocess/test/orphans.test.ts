import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createSubprocessBackend } from '../src/index.js'
import { descendants, open, running, waitFor } from './helpers.js'

const linux = process.platform === 'linux'

/** Starts a fixture host, waits for READY, returns its pid and the processes below it. */
async function startHost(fixture: string, args: string[] = []): Promise<{ pid: number; below: number[] }> {
  const host = spawn(process.execPath, [fileURLToPath(new URL(`./fixtures/${fixture}`, import.meta.url)), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  await new Promise<void>((resolve, reject) => {
    host.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('READY')) resolve()
    })
    host.on('exit', (code) => reject(new Error(`the fixture host exited early (${code})`)))
  })
  return { pid: host.pid!, below: descendants(host.pid!) }
}

describe.runIf(linux)('no orphans', () => {
  it('children die with a host that is SIGKILLed, including one running a busy loop', async () => {
    const { pid, below } = await startHost('pool-host.mjs')
    // Two memory sizes with two spares each, plus the busy one (and any wrapper processes).
    expect(below.length).toBeGreaterThanOrEqual(5)
    process.kill(pid, 'SIGKILL')
    const gone = await waitFor(() => below.every((child) => !running(child)), 5_000)
    expect(below.filter(running)).toEqual([])
    expect(gone).toBe(true)
  })

  it('session children die with a host that is SIGKILLed, idle between runs or in a busy loop', async () => {
    const { pid, below } = await startHost('session-host.mjs', ['wait'])
    expect(below.length).toBeGreaterThanOrEqual(2)
    process.kill(pid, 'SIGKILL')
    expect(await waitFor(() => below.every((child) => !running(child)), 5_000)).toBe(true)
  })

  it('an open session does not keep its host alive; its child leaves with the host', async () => {
    const { pid, below } = await startHost('session-host.mjs', ['leave'])
    expect(below.length).toBeGreaterThanOrEqual(1)
    expect(await waitFor(() => !running(pid), 5_000)).toBe(true)
    expect(await waitFor(() => below.every((child) => !running(child)), 5_000)).toBe(true)
  })

  it('without any launch wrapper, idle children leave when stdin closes and busy ones at their deadline', async () => {
    const flag = (await createSubprocessBackend({ engine: 'node-vm' }).diagnose()).permissionFlag!
    const { pid, below } = await startHost('bare-host.mjs', [flag])
    // Idle, busy, and a session child between two runs.
    expect(below.length).toBe(3)
    process.kill(pid, 'SIGKILL')
    expect(await waitFor(() => below.every((child) => !running(child)), 4_000)).toBe(true)
  })

  it('dispose() kills every child, warm or busy, and waits for them', async () => {
    const { backend, sandbox } = await open({ poolSize: 2 })
    await backend.warm(48)
    const busy = sandbox.run('for (;;) {}', { timeoutMs: 60_000 })
    await new Promise((resolve) => setTimeout(resolve, 200))
    const below = descendants(process.pid)
    expect(below.length).toBeGreaterThanOrEqual(5)
    await sandbox.dispose()
    // dispose() resolves once each child's stdio closed; a child inside a launch wrapper (setpriv,
    // unshare) may then still be on its way out for a moment on a loaded machine.
    await waitFor(() => below.every((child) => !running(child)), 2_000)
    expect(below.filter(running)).toEqual([])
    const result = await busy
    expect(result.ok).toBe(false)
  })

  it('an idle memory size loses its warm children after poolIdleMs, counted from when warm() has them ready', async () => {
    // 1 ms: shorter than any child's start, so a size whose clock ran while it was being warmed
    // (as on a loaded machine, where starts take longer than poolIdleMs) loses its spares mid-warm.
    const { backend, sandbox } = await open({ poolSize: 2, poolIdleMs: 1 })
    try {
      await backend.warm(40)
      const below = descendants(process.pid)
      expect(below.length).toBeGreaterThanOrEqual(2)
      expect(await waitFor(() => below.every((child) => !running(child)), 6_000)).toBe(true)
      // The backend still works afterwards (a cold start).
      const result = await sandbox.run('1 + 1')
      expect(result.ok && result.value).toBe(2)
    } finally {
      await sandbox.dispose()
    }
  })
})
