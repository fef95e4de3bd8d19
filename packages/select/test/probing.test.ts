import { describe, expect, it } from 'vitest'
import { createSandbox, diagnose, selectBackend } from '../src/index.js'
import { fakeCandidate, isProbe, missingCandidate } from './support/fake-candidates.js'

describe('no re-run on another backend', () => {
  it('a backend that crashes during the user run is reported in that result, not replaced', async () => {
    const crashy = fakeCandidate('crashy', 1, {
      intercept: (request) =>
        isProbe(request.script) ? undefined : { ok: false, error: { code: 'BACKEND_CRASHED', message: 'the engine died' } },
    })
    const spare = fakeCandidate('spare', 2)
    const sandbox = await createSandbox({ candidates: [crashy.candidate, spare.candidate], env: {} })
    let sideEffects = 0
    const r = await sandbox.run('await counter.bump({})\n1', { tools: { 'counter.bump': { execute: () => ++sideEffects } } })
    expect(r).toMatchObject({ ok: false, error: { code: 'BACKEND_CRASHED', message: 'the engine died' }, stats: { backend: 'crashy' } })
    expect(sideEffects).toBe(0)
    // The weaker backend never saw the user's code (it was not even probed).
    expect(spare.ledger.scripts).toEqual([])
    // A second run goes to the same backend again.
    const again = await sandbox.run('2')
    expect(again).toMatchObject({ ok: false, error: { code: 'BACKEND_CRASHED' } })
    expect(spare.ledger.scripts).toEqual([])
    await sandbox.dispose()
  })

  it('a guest error stays a guest error', async () => {
    const first = fakeCandidate('first', 1)
    const second = fakeCandidate('second', 2)
    const sandbox = await createSandbox({ candidates: [first.candidate, second.candidate], env: {} })
    const r = await sandbox.run('throw new TypeError("nope")')
    expect(r).toMatchObject({ ok: false, error: { code: 'RUNTIME_ERROR', name: 'TypeError', message: 'nope' } })
    expect(second.ledger.created).toBe(0)
    await sandbox.dispose()
  })
})

describe('what counts as working', () => {
  it('a probe that returns the wrong value is broken', async () => {
    const liar = fakeCandidate('liar', 1, { intercept: () => ({ ok: true, value: '3' }) })
    const d = await diagnose({ candidates: [liar.candidate], env: {} })
    expect(d.candidates[0]).toMatchObject({
      available: false,
      status: 'broken',
      reason: 'the probe program gave 3 after 0 tool call(s), expected 2 after 1',
      fix: 'report this as a bug in @fake/backend-liar',
    })
    expect(liar.ledger.disposed).toBe(liar.ledger.created)
  })

  it('a probe that ends with another error code is broken, with the code', async () => {
    const slow = fakeCandidate('slow', 1, { intercept: () => ({ ok: false, error: { code: 'TIMEOUT', message: 'took too long' } }) })
    const d = await diagnose({ candidates: [slow.candidate], env: {}, probeTimeoutMs: 1234 })
    expect(d.candidates[0]).toMatchObject({
      status: 'broken',
      reason: 'the probe program ended with TIMEOUT: took too long',
      fix: expect.stringContaining('raise probeTimeoutMs (now 1234)'),
    })
  })

  it('a backend that ignores its deadline is cut off and counted as broken', async () => {
    const hung = fakeCandidate('hung', 1, { intercept: () => new Promise(() => {}) })
    const fine = fakeCandidate('fine', 2)
    const started = Date.now()
    const selection = await selectBackend({ candidates: [hung.candidate, fine.candidate], env: {}, probeTimeoutMs: 200 })
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(selection.name).toBe('fine')
    expect(selection.report.candidates[0]).toMatchObject({ status: 'broken', reason: expect.stringContaining('ignored its deadline') })
    expect(selection.report.candidates[0]!.probeMs).toBeGreaterThanOrEqual(1_100)
    await selection.backend.dispose()
  })

  it('an import that never finishes is cut off at the probe deadline', async () => {
    const stuck = { ...fakeCandidate('stuck', 1).candidate, load: () => new Promise<Record<string, unknown>>(() => {}) }
    const d = await diagnose({ candidates: [stuck], env: {}, probeTimeoutMs: 100 })
    expect(d.candidates[0]).toMatchObject({
      status: 'unusable',
      reason: '@fake/backend-stuck failed to load: importing @fake/backend-stuck did not finish within 100 ms',
    })
  })

  it('a backend whose capabilities cannot be read is broken, and is disposed', async () => {
    let disposed = 0
    const backend = {
      specificationVersion: 'v1',
      name: 'weird',
      get capabilities(): never {
        throw new Error('no manifest')
      },
      execute: async () => ({ ok: true, value: '2' }),
      dispose: async () => void disposed++,
    }
    const weird = {
      name: 'weird',
      rank: 1,
      module: '@fake/weird',
      factory: 'create',
      install: 'npm i @fake/weird',
      load: async () => ({ create: () => backend }),
    }
    const d = await diagnose({ candidates: [weird], env: {} })
    expect(d.candidates[0]).toMatchObject({ status: 'broken', reason: 'its capabilities cannot be read: no manifest' })
    expect(disposed).toBe(1)
  })

  it('a factory that throws makes the candidate unusable, with its message', async () => {
    const thrower = fakeCandidate('thrower', 1, { factoryError: new Error('no engine on this platform') })
    const d = await diagnose({ candidates: [thrower.candidate], env: {} })
    expect(d.candidates[0]).toMatchObject({ status: 'unusable', reason: 'no engine on this platform' })
  })

  it('a package without the factory export is unusable, with a version hint', async () => {
    const odd = fakeCandidate('odd', 1)
    const d = await diagnose({ candidates: [{ ...odd.candidate, factory: 'createOddBackend' }], env: {} })
    expect(d.candidates[0]).toMatchObject({
      status: 'unusable',
      reason: '@fake/backend-odd does not export createOddBackend() (a version that does not match @cordon/select?)',
    })
  })

  it('a package that loads but misses a dependency says which', async () => {
    const error = Object.assign(new Error("Cannot find package 'left-pad' imported from /x/node_modules/@fake/backend-dep/dist/index.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    })
    const dep = { ...fakeCandidate('dep', 1).candidate, load: () => Promise.reject(error) }
    const d = await diagnose({ candidates: [dep], env: {} })
    expect(d.candidates[0]).toMatchObject({
      status: 'unusable',
      reason: '@fake/backend-dep is installed but cannot load its dependency left-pad',
      fix: 'reinstall it: npm install @fake/backend-dep',
    })
  })

  it('an installed package whose entry file is missing is not called "not installed"', async () => {
    const error = Object.assign(
      new Error("Cannot find module '/app/node_modules/@fake/backend-raw/dist/index.js' imported from /app/x.js"),
      { code: 'ERR_MODULE_NOT_FOUND' },
    )
    const raw = { ...fakeCandidate('raw', 1).candidate, load: () => Promise.reject(error) }
    const d = await diagnose({ candidates: [raw], env: {} })
    expect(d.candidates[0]).toMatchObject({
      status: 'unusable',
      reason:
        'the package @fake/backend-raw is installed but the file /app/node_modules/@fake/backend-raw/dist/index.js is missing (an unbuilt or damaged install)',
      fix: 'reinstall it: npm install @fake/backend-raw',
    })
  })

  it('a missing package is found by really importing it', async () => {
    const d = await diagnose({ candidates: [missingCandidate('gone', 1)], env: {} })
    expect(d.candidates[0]).toMatchObject({
      available: false,
      status: 'not-installed',
      reason: 'the package @cordon-test-missing/backend-gone is not installed',
      fix: 'npm install @cordon-test-missing/backend-gone',
    })
  })
})

describe('probe cache', () => {
  it('probes each candidate once per process; concurrent callers share the probe', async () => {
    const a = fakeCandidate('a', 1)
    const options = { candidates: [a.candidate], env: {} }
    const [s1, s2] = await Promise.all([selectBackend(options), selectBackend(options)])
    await diagnose(options)
    expect(a.ledger.scripts.filter(isProbe)).toHaveLength(1)
    // Each caller still gets its own backend instance.
    expect(s1.backend).not.toBe(s2.backend)
    await Promise.all([s1.backend.dispose(), s2.backend.dispose()])
  })

  it('fresh: true probes again', async () => {
    const a = fakeCandidate('a', 1)
    await diagnose({ candidates: [a.candidate], env: {} })
    await diagnose({ candidates: [a.candidate], env: {}, fresh: true })
    expect(a.ledger.scripts.filter(isProbe)).toHaveLength(2)
  })

  it('plain backendOptions are compared by value, others by identity', async () => {
    const a = fakeCandidate('a', 1)
    const probe = (options: object) => diagnose({ candidates: [a.candidate], env: {}, backendOptions: { a: options } })
    await probe({ x: 1, y: [1, 2] })
    await probe({ y: [1, 2], x: 1 })
    expect(a.ledger.scripts.filter(isProbe)).toHaveLength(1)
    await probe({ x: 2, y: [1, 2] })
    expect(a.ledger.scripts.filter(isProbe)).toHaveLength(2)
    const loader = { load: () => 1 }
    await probe(loader)
    await probe(loader)
    await probe({ load: () => 1 })
    expect(a.ledger.scripts.filter(isProbe)).toHaveLength(4)
  })
})

describe('a backend that has run here before (provenHere)', () => {
  const proven = () => 'the cache remembers a run on 2026-12-01'

  it('is selected without a probe run: the first run is the user’s', async () => {
    const a = fakeCandidate('a', 1, { provenHere: proven })
    const sandbox = await createSandbox({ candidates: [a.candidate], env: {} })
    try {
      expect(a.ledger.scripts).toEqual([])
      expect((await sandbox.run('6 * 7')).ok).toBe(true)
      expect(a.ledger.scripts.filter(isProbe)).toEqual([])
    } finally {
      await sandbox.dispose()
    }
    const { report } = await selectBackend({ candidates: [a.candidate], env: {} }).then(async (s) => (await s.backend.dispose(), s))
    expect(report.candidates[0]).toMatchObject({ available: true, reason: 'not probed: the cache remembers a run on 2026-12-01' })
  })

  it('diagnose() and fresh: true run the probe program all the same', async () => {
    const a = fakeCandidate('a', 1, { provenHere: proven })
    const d = await diagnose({ candidates: [a.candidate], env: {} })
    expect(d.candidates[0]!.reason).toMatch(/^ran the probe program/)
    const b = fakeCandidate('b', 1, { provenHere: proven })
    const chosen = await selectBackend({ candidates: [b.candidate], env: {}, fresh: true })
    await chosen.backend.dispose()
    expect(a.ledger.scripts.filter(isProbe)).toHaveLength(1)
    expect(b.ledger.scripts.filter(isProbe)).toHaveLength(1)
  })

  it('an answer that is not a non-empty string, or a throw, counts as no proof', async () => {
    for (const provenHere of [
      () => '',
      () => 42,
      () => undefined,
      () => {
        throw new Error('no')
      },
    ]) {
      const a = fakeCandidate('a', 1, { provenHere })
      const chosen = await selectBackend({ candidates: [a.candidate], env: {} })
      await chosen.backend.dispose()
      expect(a.ledger.scripts.filter(isProbe)).toHaveLength(1)
    }
  })
})
