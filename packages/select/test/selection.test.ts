import { afterEach, describe, expect, it, vi } from 'vitest'
import { isSandboxError } from '@cordon/core'
import { createSandbox, diagnose, selectBackend } from '../src/index.js'
import { fakeCandidate, isProbe, missingCandidate, unavailableCandidate } from './support/fake-candidates.js'

/** Three working fakes ranked a (strongest) < b < c. */
function trio() {
  const a = fakeCandidate('a', 1, { capabilities: { isolation: 'process', survivesGuestOom: true } })
  const b = fakeCandidate('b', 2, { capabilities: { isolation: 'wasm', memoryLimit: true } })
  const c = fakeCandidate('c', 3, { capabilities: { isolation: 'v8-isolate', syncHostCalls: true } })
  return { a, b, c, candidates: [c.candidate, a.candidate, b.candidate] }
}

async function chosenName(options: Parameters<typeof selectBackend>[0]): Promise<string> {
  const selection = await selectBackend(options)
  await selection.backend.dispose()
  return selection.name
}

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('default ranking', () => {
  it('picks the strongest candidate that works and stops probing there', async () => {
    const { a, b, c, candidates } = trio()
    const selection = await selectBackend({ candidates, env: {} })
    expect(selection.name).toBe('a')
    expect(selection.backend.name).toBe('a')
    expect(selection.report.chosen).toBe('a')
    expect(selection.report.candidates.map((r) => [r.name, r.status])).toEqual([
      ['a', 'available'],
      ['b', 'not-tried'],
      ['c', 'not-tried'],
    ])
    expect(b.ledger.created + c.ledger.created).toBe(0)
    // The caller gets the probed instance itself, warm: made once, not disposed.
    expect(a.ledger.created).toBe(1)
    expect(a.ledger.disposed).toBe(0)
    await selection.backend.dispose()
    expect(a.ledger.disposed).toBe(1)
  })

  it('hands the probed instance to one selection only: a later one (the probe cached) gets a new instance', async () => {
    const { a, candidates } = trio()
    const first = await selectBackend({ candidates, env: {} })
    const second = await selectBackend({ candidates, env: {} })
    expect(second.backend).not.toBe(first.backend)
    expect(a.ledger.created).toBe(2)
    await Promise.all([first.backend.dispose(), second.backend.dispose()])
    expect(a.ledger.disposed).toBe(2)
  })

  it('diagnose() keeps no probed instance, and a probed candidate that lacks a required capability is disposed', async () => {
    const { a, c, candidates } = trio()
    await diagnose({ candidates, env: {} })
    expect(a.ledger.disposed).toBe(a.ledger.created)
    const { a: a2, c: c2, candidates: fresh } = trio()
    const selection = await selectBackend({ candidates: fresh, env: {}, require: ['syncHostCalls'] })
    expect(selection.name).toBe('c')
    expect(a2.ledger.created).toBe(1)
    expect(a2.ledger.disposed).toBe(1)
    expect(c2.ledger.disposed).toBe(0)
    await selection.backend.dispose()
    expect(c.ledger.created).toBe(c.ledger.disposed)
  })

  it('passes over candidates that do not work and says why', async () => {
    const a = missingCandidate('a', 1)
    const b = unavailableCandidate('b', 2, 'engine X could not be loaded')
    const c = fakeCandidate('c', 3)
    const selection = await selectBackend({ candidates: [a, b.candidate, c.candidate], env: {} })
    expect(selection.name).toBe('c')
    const [ra, rb] = selection.report.candidates
    expect(ra).toMatchObject({ name: 'a', available: false, status: 'not-installed', fix: 'npm install @cordon-test-missing/backend-a' })
    expect(rb).toMatchObject({ name: 'b', available: false, status: 'unusable', reason: 'engine X could not be loaded' })
    expect(selection.report.summary).toMatch(
      /^c: the strongest backend that can be used here \(passed over a: .*not installed.*; b: engine X/,
    )
    await selection.backend.dispose()
  })

  it('throws BACKEND_UNAVAILABLE listing every reason and fix when nothing works', async () => {
    const a = missingCandidate('a', 1)
    const b = unavailableCandidate('b', 2, 'engine X could not be loaded. Fix: install engine X')
    const error = await selectBackend({ candidates: [a, b.candidate], env: {} }).catch((e: unknown) => e)
    expect(isSandboxError(error, 'BACKEND_UNAVAILABLE')).toBe(true)
    const e = error as Error & { fix?: string }
    expect(e.message).toContain('no backend can be used on')
    expect(e.message).toContain('a: the package @cordon-test-missing/backend-a is not installed')
    expect(e.message).toContain('b: engine X could not be loaded (fix: install engine X)')
    expect(e.fix).toBe('a: npm install @cordon-test-missing/backend-a; b: install engine X')
  })
})

describe('prefer and exclude', () => {
  it('tries preferred names first, in their order', async () => {
    const { candidates } = trio()
    expect(await chosenName({ candidates, env: {}, prefer: ['c', 'b'] })).toBe('c')
  })

  it('falls through the preference list to the ranking', async () => {
    const { candidates } = trio()
    const missing = missingCandidate('d', 4)
    const selection = await selectBackend({ candidates: [...candidates, missing], env: {}, prefer: ['d', 'b'] })
    expect(selection.name).toBe('b')
    expect(selection.report.summary).toMatch(/^b: the first backend in options.prefer/)
    expect(selection.report.candidates.map((r) => r.name)).toEqual(['d', 'b', 'a', 'c'])
    await selection.backend.dispose()
  })

  it('never probes an excluded candidate', async () => {
    const { a, candidates } = trio()
    const selection = await selectBackend({ candidates, env: {}, exclude: ['a'] })
    expect(selection.name).toBe('b')
    expect(a.ledger.created).toBe(0)
    expect(selection.report.candidates[0]).toMatchObject({ name: 'a', status: 'disabled', reason: 'removed by options.exclude' })
    await selection.backend.dispose()
  })

  it('matches names case-insensitively and by package name', async () => {
    const { candidates } = trio()
    expect(await chosenName({ candidates, env: {}, prefer: [' C '] })).toBe('c')
    expect(await chosenName({ candidates, env: {}, backend: '@fake/backend-b' })).toBe('b')
  })
})

describe('CORDON_DISABLE', () => {
  it('removes candidates (comma separated, spaces allowed)', async () => {
    const { a, b, candidates } = trio()
    const selection = await selectBackend({ candidates, env: { CORDON_DISABLE: 'a , b' } })
    expect(selection.name).toBe('c')
    expect(a.ledger.created + b.ledger.created).toBe(0)
    expect(selection.report.candidates.slice(0, 2).map((r) => r.reason)).toEqual(['removed by CORDON_DISABLE', 'removed by CORDON_DISABLE'])
    await selection.backend.dispose()
  })

  it('is read from process.env by default', async () => {
    const { candidates } = trio()
    vi.stubEnv('CORDON_DISABLE', 'a')
    expect(await chosenName({ candidates })).toBe('b')
  })

  it('fails with INVALID_OPTIONS for an unknown name', async () => {
    const { candidates } = trio()
    await expect(selectBackend({ candidates, env: { CORDON_DISABLE: 'a,zz' } })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('unknown backend "zz" (known: c, a, b)'),
    })
  })
})

describe('CORDON_BACKEND and options.backend', () => {
  it('CORDON_BACKEND forces one backend and probes no other', async () => {
    const { a, b, candidates } = trio()
    const selection = await selectBackend({ candidates, env: { CORDON_BACKEND: 'c' } })
    expect(selection.name).toBe('c')
    expect(a.ledger.created + b.ledger.created).toBe(0)
    expect(selection.report.summary).toBe('c: CORDON_BACKEND asks for it')
    expect(selection.report.candidates.find((r) => r.name === 'a')).toMatchObject({
      status: 'not-tried',
      reason: 'not probed: CORDON_BACKEND asks for c',
    })
    await selection.backend.dispose()
  })

  it('is read from process.env by default', async () => {
    const { candidates } = trio()
    vi.stubEnv('CORDON_BACKEND', 'b')
    expect(await chosenName({ candidates })).toBe('b')
  })

  it('an empty CORDON_BACKEND means no choice', async () => {
    const { candidates } = trio()
    expect(await chosenName({ candidates, env: { CORDON_BACKEND: ' ' } })).toBe('a')
  })

  it('options.backend wins over CORDON_BACKEND and CORDON_DISABLE', async () => {
    const { candidates } = trio()
    expect(await chosenName({ candidates, env: { CORDON_BACKEND: 'a', CORDON_DISABLE: 'b' }, backend: 'b' })).toBe('b')
  })

  it('a forced backend that does not work fails loudly with its reason and fix, without falling back', async () => {
    const { a, candidates } = trio()
    const broken = unavailableCandidate('x', 9, 'engine X needs flag --foo. Fix: run with --foo')
    const error = await selectBackend({ candidates: [...candidates, broken.candidate], env: { CORDON_BACKEND: 'x' } }).catch(
      (e: unknown) => e,
    )
    expect(isSandboxError(error, 'BACKEND_UNAVAILABLE')).toBe(true)
    expect((error as Error).message).toBe(
      'CORDON_BACKEND asks for x, which cannot be used here: engine X needs flag --foo. Fix: run with --foo',
    )
    expect((error as { fix?: string }).fix).toBe('run with --foo')
    expect(a.ledger.created).toBe(0)
  })

  it('a forced backend whose package is missing names the install command', async () => {
    const error = await createSandbox({ candidates: [missingCandidate('m', 1)], backend: 'm', env: {} }).catch((e: unknown) => e)
    expect(isSandboxError(error, 'BACKEND_UNAVAILABLE')).toBe(true)
    expect((error as Error).message).toBe(
      'options.backend asks for m, which cannot be used here: the package @cordon-test-missing/backend-m is not installed. Fix: npm install @cordon-test-missing/backend-m',
    )
    expect((error as { fix?: string }).fix).toBe('npm install @cordon-test-missing/backend-m')
  })

  it('unknown names are INVALID_OPTIONS, before anything is probed', async () => {
    const { a, candidates } = trio()
    for (const options of [{ backend: 'nope' }, { prefer: ['nope'] }, { exclude: ['nope'] }, { env: { CORDON_BACKEND: 'nope' } }]) {
      await expect(selectBackend({ candidates, env: {}, ...options })).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
        message: expect.stringContaining('unknown backend "nope"'),
      })
    }
    expect(a.ledger.created).toBe(0)
  })

  it('contradictions are INVALID_OPTIONS', async () => {
    const { candidates } = trio()
    await expect(selectBackend({ candidates, backend: 'a', exclude: ['a'], env: {} })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' })
    await expect(selectBackend({ candidates, env: { CORDON_BACKEND: 'a', CORDON_DISABLE: 'a' } })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: 'CORDON_BACKEND asks for "a" but CORDON_DISABLE removes it; drop one of the two',
    })
  })
})

describe('option checking', () => {
  it('refuses unknown options and malformed values', async () => {
    const { candidates } = trio()
    const bad: unknown[] = [
      { candidates, prefered: ['a'] },
      { candidates, prefer: 'a' },
      { candidates, probeTimeoutMs: 0 },
      { candidates, fresh: 'yes' },
      { candidates, backendOptions: { zz: {} } },
      { candidates, backendOptions: { a: 5 } },
      { candidates: [] },
      { candidates: [{ name: 'x' }] },
      'quickjs',
    ]
    for (const options of bad) {
      await expect(selectBackend(options as never)).rejects.toMatchObject({ code: 'INVALID_OPTIONS' })
    }
    await expect(diagnose({ candidates, defaults: {} } as never)).rejects.toMatchObject({ code: 'INVALID_OPTIONS' })
  })

  it('passes backendOptions to the factory of that backend only', async () => {
    const { a, candidates } = trio()
    const options = { poolSize: 3 }
    const selection = await selectBackend({ candidates, env: {}, backendOptions: { a: options } })
    // Once: the probe's instance is the selection's.
    expect(a.ledger.options).toEqual([options])
    await selection.backend.dispose()
  })

  it("throws the factory's INVALID_OPTIONS instead of silently choosing a weaker backend", async () => {
    const { SandboxError } = await import('@cordon/core')
    const picky = fakeCandidate('p', 1, { factoryError: new SandboxError('INVALID_OPTIONS', 'poolSize must be a number') })
    const { a, candidates } = trio()
    await expect(selectBackend({ candidates: [picky.candidate, ...candidates], env: {} })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: 'poolSize must be a number',
    })
    expect(a.ledger.created).toBe(0)
    // diagnose() reports it instead of throwing.
    const d = await diagnose({ candidates: [picky.candidate, ...candidates], env: {} })
    expect(d.candidates[0]).toMatchObject({
      name: 'p',
      status: 'unusable',
      reason: 'backendOptions.p were refused: poolSize must be a number',
    })
    expect(d.chosen).toBe('a')
  })
})

describe('createSandbox', () => {
  it('runs a program with a tool on the chosen backend, with the given defaults', async () => {
    const { a, candidates } = trio()
    const sandbox = await createSandbox({ candidates, env: {}, defaults: { globals: { repo: 'acme/app' } } })
    expect(sandbox.backend.name).toBe('a')
    const r = await sandbox.run('const issues = await github.listIssues({ repo })\nissues.length', {
      globals: { repo: 'acme/app' },
      tools: { 'github.listIssues': { execute: async ({ repo }: { repo: string }) => [repo, repo] } },
    })
    expect(r).toMatchObject({ ok: true, value: 2, stats: { backend: 'a', toolCalls: 1 } })
    expect(a.ledger.scripts.filter((s) => !isProbe(s))).toHaveLength(1)
    await sandbox.dispose()
    // One instance: probed, then the sandbox's.
    expect(a.ledger.created).toBe(1)
    expect(a.ledger.disposed).toBe(1)
  })

  it('refuses bad defaults with INVALID_OPTIONS and disposes the backend it made', async () => {
    const { a, candidates } = trio()
    await expect(createSandbox({ candidates, env: {}, defaults: { timeout: 5 } as never })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    })
    expect(a.ledger.disposed).toBe(a.ledger.created)
  })
})
