import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createSandbox, isSandboxError } from '@cordon/core'
import { describe, expect, it } from 'vitest'
import { createSubprocessBackend } from '../src/index.js'
import { errorOf } from './helpers.js'

describe('construction and availability', () => {
  it('does no I/O at construction and declares static, JSON-safe capabilities', () => {
    const backend = createSubprocessBackend({ nodePath: '/definitely/not/here' })
    expect(JSON.parse(JSON.stringify(backend.capabilities))).toEqual({
      isolation: 'process',
      memoryLimit: true,
      syncHostCalls: true,
      survivesGuestOom: true,
      cpuTime: true,
      heapStats: true,
      networkIsolation: false,
      sessions: true,
      preemptive: true,
    })
    expect(createSubprocessBackend({ networkIsolation: 'required' }).capabilities.networkIsolation).toBe(true)
  })

  it('rejects bad options with INVALID_OPTIONS', () => {
    for (const options of [
      { poolSize: -1 },
      { poolSize: 1.5 },
      { poolIdleMs: 'x' },
      { networkIsolation: 'maybe' },
      { nodePath: '' },
      { memoryCheckMs: -1 },
    ]) {
      let thrown: unknown
      try {
        createSubprocessBackend(options as never)
      } catch (error) {
        thrown = error
      }
      expect(isSandboxError(thrown, 'INVALID_OPTIONS'), JSON.stringify(options)).toBe(true)
    }
  })

  it('a missing Node binary is BACKEND_UNAVAILABLE with the reason, never a crash', async () => {
    const backend = createSubprocessBackend({ nodePath: '/definitely/not/here/node' })
    const sandbox = createSandbox(backend)
    const error = errorOf(await sandbox.run('1'))
    expect(error.code).toBe('BACKEND_UNAVAILABLE')
    expect(error.message).toMatch(/not\/here\/node/)
    const diagnostics = await backend.diagnose()
    expect(diagnostics.available).toBe(false)
    await sandbox.dispose()
  })

  it('a binary that is not Node is BACKEND_UNAVAILABLE', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cordon-fake-node-'))
    const fake = path.join(dir, 'node')
    fs.writeFileSync(fake, '#!/bin/sh\necho "I am not node" >&2\nexit 3\n', { mode: 0o755 })
    try {
      const sandbox = createSandbox(createSubprocessBackend({ nodePath: fake }))
      const error = errorOf(await sandbox.run('1'))
      expect(error.code).toBe('BACKEND_UNAVAILABLE')
      expect(error.message).toMatch(/not node/)
      await sandbox.dispose()
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it('diagnose() explains how children are launched here', async () => {
    const diagnostics = await createSubprocessBackend().diagnose()
    expect(diagnostics.available).toBe(true)
    expect(diagnostics.permissionFlag).toMatch(/^--(experimental-)?permission$/)
    expect(diagnostics.nodeVersion).toBe(process.versions.node)
  })

  it("networkIsolation 'required' runs only where the child provably has no network", async () => {
    const backend = createSubprocessBackend({ networkIsolation: 'required' })
    const sandbox = createSandbox(backend)
    const diagnostics = await backend.diagnose()
    const result = await sandbox.run('1 + 1')
    if (diagnostics.network === 'none' || diagnostics.network === 'unknown') expect(errorOf(result).code).toBe('BACKEND_UNAVAILABLE')
    else expect(result.ok && result.value).toBe(2)
    await sandbox.dispose()
  })
})
