/**
 * The real backend packages, probed for real in this Node process (vitest runs it with
 * --no-node-snapshot). Other runtimes are covered by scripts/runtime-matrix.mjs.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { BACKEND_NAMES, createSandbox, diagnose, selectBackend } from '../src/index.js'

const PROGRAM = 'const issues = await github.listIssues({ repo })\nissues.map((i) => i.id)'
const TOOLS = {
  'github.listIssues': {
    inputSchema: { type: 'object', properties: { repo: { type: 'string' } }, required: ['repo'] },
    execute: async ({ repo }: { repo: string }) => (repo === 'acme/app' ? [{ id: 1 }, { id: 2 }] : []),
  },
}

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('real backends on this Node', () => {
  it('diagnose() reports the three built-ins, strongest first, each explained', async () => {
    const d = await diagnose({ env: {} })
    expect(BACKEND_NAMES).toEqual(['subprocess', 'quickjs', 'ivm'])
    expect(d.candidates.map((c) => [c.name, c.rank])).toEqual([
      ['subprocess', 1],
      ['quickjs', 2],
      ['ivm', 3],
    ])
    expect(d.runtime).toMatchObject({ kind: 'node', version: process.versions.node, noNodeSnapshot: true })
    for (const c of d.candidates) {
      expect(c.status, `${c.name}: ${c.reason}`).not.toBe('broken')
      expect(c.reason.length).toBeGreaterThan(0)
      if (c.available) expect(c.capabilities).toBeDefined()
      else expect(c.fix, c.name).toBeTruthy()
    }
  })

  it('QuickJS works on every runtime, so here too', async () => {
    const d = await diagnose({ env: {} })
    const quickjs = d.candidates.find((c) => c.name === 'quickjs')!
    expect(quickjs, quickjs.reason).toMatchObject({ available: true, capabilities: { isolation: 'wasm' } })
  })

  it('the subprocess backend works on Node and declares process isolation', async () => {
    const d = await diagnose({ env: {} })
    const subprocess = d.candidates.find((c) => c.name === 'subprocess')!
    expect(subprocess, subprocess.reason).toMatchObject({ available: true, capabilities: { isolation: 'process', survivesGuestOom: true } })
    expect(d.chosen).toBe('subprocess')
  })

  it('ivm is available, or its reason is a specific explanation', async () => {
    const ivm = (await diagnose({ env: {} })).candidates.find((c) => c.name === 'ivm')!
    if (!ivm.available)
      expect(ivm.reason).toMatch(/NODE_MODULE_VERSION|no prebuilt isolated-vm|isolated-vm is not installed|--no-node-snapshot/)
    else expect(ivm.capabilities).toMatchObject({ isolation: 'v8-isolate' })
  })

  it('createSandbox() runs a program with a tool on the chosen backend', async () => {
    const sandbox = await createSandbox({ env: {}, defaults: { timeoutMs: 10_000 } })
    try {
      const r = await sandbox.run(PROGRAM, { tools: TOOLS, globals: { repo: 'acme/app' } })
      expect(r).toMatchObject({ ok: true, value: [1, 2], stats: { backend: sandbox.backend.name, toolCalls: 1 } })
      const d = await diagnose({ env: {} })
      expect(sandbox.backend.name).toBe(d.chosen)
    } finally {
      await sandbox.dispose()
    }
  })

  it('every available backend runs the same program the same way when forced', async () => {
    const d = await diagnose({ env: {} })
    const available = d.candidates.filter((c) => c.available).map((c) => c.name)
    expect(available.length).toBeGreaterThan(0)
    for (const name of available) {
      const sandbox = await createSandbox({ backend: name, env: {} })
      try {
        const r = await sandbox.run(PROGRAM, { tools: TOOLS, globals: { repo: 'acme/app' } })
        expect(r, name).toMatchObject({ ok: true, value: [1, 2], stats: { backend: name } })
      } finally {
        await sandbox.dispose()
      }
    }
  })

  it('subprocess is taken without a probe run once its launch-plan cache remembers the engine', async () => {
    const launchPlanCache = fs.mkdtempSync(path.join(os.tmpdir(), 'cordon-select-proven-'))
    try {
      // The first selection probes: the backend checks its engine and its cache remembers it.
      const first = await selectBackend({ env: {}, backendOptions: { subprocess: { launchPlanCache } } })
      await first.backend.dispose()
      expect(first.report.candidates[0]!.reason).toMatch(/^ran the probe program with a tool call on subprocess \(engine isolated-vm\)/)
      // Other options, the same cache: a new probe, which the backend's proof makes unnecessary.
      const options = { env: {}, backendOptions: { subprocess: { launchPlanCache, poolIdleMs: 20_000 } } }
      const second = await selectBackend(options)
      await second.backend.dispose()
      expect(second.name).toBe('subprocess')
      expect(second.report.candidates[0]!.reason).toMatch(/^not probed: the launch-plan cache remembers isolated-vm passing its check/)
      const sandbox = await createSandbox({ ...options, backendOptions: { subprocess: { launchPlanCache, poolIdleMs: 21_000 } } })
      try {
        const r = await sandbox.run(PROGRAM, { tools: TOOLS, globals: { repo: 'acme/app' } })
        expect(r).toMatchObject({ ok: true, value: [1, 2], stats: { backend: 'subprocess', toolCalls: 1 } })
      } finally {
        await sandbox.dispose()
      }
    } finally {
      fs.rmSync(launchPlanCache, { recursive: true, force: true })
    }
  })

  it('CORDON_BACKEND=quickjs from the real environment forces QuickJS', async () => {
    vi.stubEnv('CORDON_BACKEND', 'quickjs')
    const selection = await selectBackend()
    try {
      expect(selection.name).toBe('quickjs')
      expect(selection.backend.name).toBe('quickjs')
    } finally {
      await selection.backend.dispose()
    }
  })

  it('CORDON_DISABLE=subprocess,ivm leaves QuickJS', async () => {
    vi.stubEnv('CORDON_DISABLE', 'subprocess,ivm')
    const sandbox = await createSandbox()
    try {
      expect(sandbox.backend.name).toBe('quickjs')
    } finally {
      await sandbox.dispose()
    }
  })

  it('require: { isolation: "v8-isolate" } gives ivm or a clear BACKEND_UNAVAILABLE', async () => {
    const ivm = (await diagnose({ env: {} })).candidates.find((c) => c.name === 'ivm')!
    const attempt = selectBackend({ env: {}, require: { isolation: 'v8-isolate' } })
    if (ivm.available) {
      const selection = await attempt
      expect(selection.name).toBe('ivm')
      await selection.backend.dispose()
    } else {
      await expect(attempt).rejects.toMatchObject({ code: 'BACKEND_UNAVAILABLE', message: expect.stringContaining(`ivm: ${ivm.reason}`) })
    }
  })
})
