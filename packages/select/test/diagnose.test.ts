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
        ...(c.status === 'not-installed'
          ? {}
          : { capabilities: expect.objectContaining({ isolation: expect.any(String) }), protects: expect.any(String) }),
      })
    }
    expect(d.candidates[0]).toMatchObject({ available: true, status: 'available', capabilities: { isolation: 'process' } })
    // diagnose() is plain data.
    expect(JSON.parse(JSON.stringify(d))).toEqual(d)
  })

  it('says what each backend protects, from its capabilities', async () => {
    const inHost = fakeCandidate('a', 1, { capabilities: { isolation: 'v8-isolate', survivesGuestOom: false, preemptive: false } })
    const child = fakeCandidate('b', 2, { capabilities: { isolation: 'process+wasm', survivesGuestOom: true, preemptive: true } })
    const d = await diagnose({ candidates: [inHost.candidate, child.candidate], env: {} })
    expect(d.candidates[0]!.protects).toBe(
      "a V8 isolate per run, inside the host process; an out-of-memory the engine cannot contain can take the host process down; a busy guest can stall the host's event loop",
    )
    expect(d.candidates[1]!.protects).toBe(
      "a fresh QuickJS instance per run, inside a locked-down child process; the host outlives a guest that runs out of memory; a busy guest never holds the host's event loop",
    )
    expect(d.candidates[0]!.costs).toBeUndefined()
  })

  it('measures what each available backend costs when asked, on a fresh instance', async () => {
    const a = fakeCandidate('a', 1)
    const broken = fakeCandidate('b', 2, {
      intercept: (_request, run) => (run > 0 ? { ok: false, error: { code: 'INTERNAL', message: 'no more' } } : undefined),
    })
    const gone = unavailableCandidate('c', 3, 'no engine')
    const d = await diagnose({ candidates: [a.candidate, broken.candidate, gone.candidate], env: {}, measure: true, fresh: true })
    const [measured, failed, unusable] = d.candidates
    expect(measured!.costs).toEqual({ firstRunMs: expect.any(Number), runMs: expect.any(Number), toolCallUs: expect.any(Number) })
    expect(measured!.costs!.firstRunMs).toBeGreaterThan(0)
    // The probe's instance, then a fresh one for measuring: 1 probe + 1 first + 5 warm + 2 with tool calls.
    expect(a.ledger.created).toBe(2)
    expect(a.ledger.disposed).toBe(2)
    expect(a.ledger.scripts).toHaveLength(9)
    // Each instance of b answers its first run only: the probe passes, the second measuring run fails.
    expect(failed!.status).toBe('available')
    expect(failed!.costs).toBeUndefined()
    expect(failed!.costsError).toBe('a measuring run failed: INTERNAL: no more')
    expect(unusable!.costs).toBeUndefined()
    expect(unusable!.costsError).toBeUndefined()
  })

  it('refuses a measure option that is not a boolean', async () => {
    await expect(diagnose({ measure: 'yes' as never })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('options.measure'),
    })
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
