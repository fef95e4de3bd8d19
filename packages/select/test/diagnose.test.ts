import { afterEach, describe, expect, it, vi } from 'vitest'
import { diagnose } from '../src/index.js'
import { fakeCandidate, missingCandidate, unavailableCandidate } from './support/fake-candidates.js'

afterEach(() => {
  vi.unstubAllGlobals()
  vi.unstubAllEnvs()
})

describe('diagnose()', () => {
  it('reports every candidate with the same shape, and the runtime', async () => {
    const a = fakeCandidate('a', 1, { capabilities: { isolation: 'process' } })
    const b = unavailableCandidate('b', 2, 'no engine')
    const d = await diagnose({ candidates: [missingCandidate('m', 3), b.candidate, a.candidate], env: {} })
    expect(d.runtime).toEqual({
      kind: 'node',
      version: process.versions.node,
      nodeAbi: process.versions.modules,
      platform: `${process.platform}-${process.arch}`,
      noNodeSnapshot: expect.any(Boolean),
    })
    expect(d.chosen).toBe('a')
    expect(d.summary).toMatch(/^a: the strongest backend that can be used here$/)
    expect(d.candidates.map((c) => c.name)).toEqual(['a', 'b', 'm'])
    for (const c of d.candidates) {
      expect(c).toEqual({
        name: expect.any(String),
        rank: expect.any(Number),
        module: expect.any(String),
        available: expect.any(Boolean),
        status: expect.any(String),
        reason: expect.any(String),
        probeMs: expect.any(Number),
        ...(c.available ? {} : { fix: expect.any(String) }),
        ...(c.status === 'not-installed' ? {} : { capabilities: expect.objectContaining({ isolation: expect.any(String) }) }),
      })
    }
    expect(d.candidates[0]).toMatchObject({ available: true, status: 'available', capabilities: { isolation: 'process' } })
    // diagnose() is plain data.
    expect(JSON.parse(JSON.stringify(d))).toEqual(d)
  })

  it('probes candidates below the chosen one too, but not disabled ones', async () => {
    const a = fakeCandidate('a', 1)
    const b = fakeCandidate('b', 2)
    const c = fakeCandidate('c', 3)
    const d = await diagnose({ candidates: [a.candidate, b.candidate, c.candidate], env: { CORDON_DISABLE: 'c' } })
    expect(d.candidates.map((r) => r.status)).toEqual(['available', 'available', 'disabled'])
    expect(c.ledger.created).toBe(0)
    expect(d.chosen).toBe('a')
  })

  it('says what a forced backend would do', async () => {
    const a = fakeCandidate('a', 1)
    const b = unavailableCandidate('b', 2, 'no engine')
    const d = await diagnose({ candidates: [a.candidate, b.candidate], env: { CORDON_BACKEND: 'b' } })
    expect(d.chosen).toBeUndefined()
    expect(d.summary).toBe('CORDON_BACKEND asks for b, which cannot be used here')
    expect(d.candidates.map((r) => [r.name, r.status])).toEqual([
      ['b', 'unusable'],
      ['a', 'available'],
    ])
  })

  it('detects Bun before looking at the Node version', async () => {
    vi.stubGlobal('Bun', { version: '1.3.0' })
    const d = await diagnose({ candidates: [fakeCandidate('a', 1).candidate], env: {} })
    expect(d.runtime).toMatchObject({ kind: 'bun', noNodeSnapshot: false })
    expect(d.runtime.nodeAbi).toBeUndefined()
  })

  it('detects Deno before looking at the Node version', async () => {
    vi.stubGlobal('Deno', { version: { deno: '2.1.0' } })
    const d = await diagnose({ candidates: [fakeCandidate('a', 1).candidate], env: {} })
    expect(d.runtime).toMatchObject({ kind: 'deno', version: '2.1.0' })
  })

  it('sees --no-node-snapshot in NODE_OPTIONS as well as execArgv', async () => {
    vi.stubEnv('NODE_OPTIONS', '--max-old-space-size=100 --no-node-snapshot')
    const d = await diagnose({ candidates: [fakeCandidate('a', 1).candidate], env: {} })
    expect(d.runtime.noNodeSnapshot).toBe(true)
  })
})
