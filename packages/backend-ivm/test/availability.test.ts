import { afterEach, describe, expect, test } from 'vitest'
import { createEngineLoader, describeLoadFailure, installHint } from '../src/engine-loader.js'
import { createIvmBackend } from '../src/index.js'
import { missingNoNodeSnapshot, type ProcessFacts } from '../src/runtime-check.js'
import { rawRequest } from './helpers.js'

function facts(overrides: Partial<ProcessFacts> = {}): ProcessFacts {
  return { versions: { node: '20.20.2' }, execArgv: [], env: {}, isDeno: false, ...overrides }
}

describe('--no-node-snapshot', () => {
  test('is required from Node 20 on, from execArgv or NODE_OPTIONS', () => {
    expect(missingNoNodeSnapshot(facts())).toMatch(/--no-node-snapshot/)
    expect(missingNoNodeSnapshot(facts({ execArgv: ['--no-node-snapshot'] }))).toBeUndefined()
    expect(missingNoNodeSnapshot(facts({ env: { NODE_OPTIONS: '--max-old-space-size=100 --no-node-snapshot' } }))).toBeUndefined()
    expect(missingNoNodeSnapshot(facts({ versions: { node: '18.20.0' } }))).toBeUndefined()
    // Bun and Deno report a Node version but have no Node snapshot; loading decides there.
    expect(missingNoNodeSnapshot(facts({ versions: { node: '26.3.0', bun: '1.4.0' } }))).toBeUndefined()
    expect(missingNoNodeSnapshot(facts({ isDeno: true }))).toBeUndefined()
  })

  describe('missing from this process', () => {
    const execArgv = process.execArgv
    const nodeOptions = process.env.NODE_OPTIONS
    afterEach(() => {
      process.execArgv = execArgv
      if (nodeOptions === undefined) delete process.env.NODE_OPTIONS
      else process.env.NODE_OPTIONS = nodeOptions
    })

    test('resolves BACKEND_UNAVAILABLE with the fix instead of loading isolated-vm', async () => {
      process.execArgv = execArgv.filter((arg) => arg !== '--no-node-snapshot')
      delete process.env.NODE_OPTIONS
      const backend = createIvmBackend()
      const outcome = await backend.execute(rawRequest('return 1 + 1'))
      expect(outcome).toMatchObject({ ok: false, error: { code: 'BACKEND_UNAVAILABLE' } })
      if (!outcome.ok) expect(outcome.error.message).toMatch(/node --no-node-snapshot/)
      await backend.dispose()
    })
  })
})

describe('loading isolated-vm', () => {
  test('no candidate installed: names each cause and the version to install', async () => {
    const load = createEngineLoader(undefined, ['isolated-vm-not-here', 'isolated-vm-nor-here'])
    const result = await load()
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.message).toMatch(/isolated-vm-not-here: not installed; isolated-vm-nor-here: not installed/)
    expect(result.message).toMatch(/npm install isolated-vm@/)
  })

  test('an injected loader that throws becomes BACKEND_UNAVAILABLE, not a rejection', async () => {
    const backend = createIvmBackend({
      isolatedVm: () => {
        throw new Error('boom')
      },
    })
    const outcome = await backend.execute(rawRequest('return 1 + 1'))
    expect(outcome).toMatchObject({ ok: false, error: { code: 'BACKEND_UNAVAILABLE' } })
    if (!outcome.ok) expect(outcome.error.message).toMatch(/boom/)
  })

  test('an injected object that is not isolated-vm is refused', async () => {
    const backend = createIvmBackend({ isolatedVm: {} as never })
    const outcome = await backend.execute(rawRequest('return 1 + 1'))
    expect(outcome).toMatchObject({ ok: false, error: { code: 'BACKEND_UNAVAILABLE' } })
  })

  test('load failures seen in practice get a one-line cause', () => {
    const notFound = Object.assign(new Error("Cannot find module 'isolated-vm'"), { code: 'MODULE_NOT_FOUND' })
    expect(describeLoadFailure('isolated-vm', notFound)).toBe('not installed')
    const abi = Object.assign(
      new Error(
        'The module was compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 137.',
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    )
    expect(describeLoadFailure('isolated-vm', abi)).toMatch(/module version 115, this runtime needs 137/)
    expect(describeLoadFailure('isolated-vm', new Error('No native build was found for platform=linux'))).toMatch(/no prebuilt binary/)
  })

  test('the fix names the isolated-vm release for the Node major, and quickjs on Bun/Deno', () => {
    expect(installHint(facts({ versions: { node: '20.20.2' } }))).toMatch(/isolated-vm@5\.0\.4/)
    expect(installHint(facts({ versions: { node: '22.1.0' } }))).toMatch(/isolated-vm@6\.2\.0/)
    expect(installHint(facts({ versions: { node: '24.3.0' } }))).toMatch(/isolated-vm@7\.0\.1/)
    expect(installHint(facts({ versions: { node: '26.3.0', bun: '1.4.0' } }))).toMatch(/backend-quickjs/)
  })

  test('the module is loaded on first execute, not at construction', async () => {
    let loads = 0
    const backend = createIvmBackend({
      isolatedVm: () => {
        loads++
        throw new Error('not now')
      },
    })
    expect(loads).toBe(0)
    await backend.execute(rawRequest('return 1 + 1'))
    await backend.execute(rawRequest('return 1 + 1'))
    expect(loads).toBe(1)
  })
})

describe('options', () => {
  test('bad values are host errors thrown at construction', () => {
    expect(() => createIvmBackend({ poolSize: -1 })).toThrow(/poolSize/)
    expect(() => createIvmBackend({ poolIdleMs: 1.5 })).toThrow(/poolIdleMs/)
    expect(() => createIvmBackend({ poolBurstSize: 2.5 })).toThrow(/poolBurstSize/)
    expect(() => createIvmBackend({ maxLostIsolates: -1 })).toThrow(/maxLostIsolates/)
    expect(() => createIvmBackend({ inspector: 'yes' as never })).toThrow(/inspector must be a boolean/)
    expect(() => createIvmBackend({ onCatastrophicError: 'log' as never })).toThrow(/onCatastrophicError/)
  })
})
