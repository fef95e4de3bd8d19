import { describe, expect, it } from 'vitest'
import { isSandboxError } from '@cordon/core'
import { selectBackend } from '../src/index.js'
import { fakeCandidate } from './support/fake-candidates.js'

function trio() {
  const a = fakeCandidate('a', 1, { capabilities: { isolation: 'process', survivesGuestOom: true } })
  const b = fakeCandidate('b', 2, { capabilities: { isolation: 'wasm', memoryLimit: true } })
  const c = fakeCandidate('c', 3, { capabilities: { isolation: 'v8-isolate', syncHostCalls: true, memoryLimit: true } })
  return { a, b, c, candidates: [a.candidate, b.candidate, c.candidate] }
}

describe('require', () => {
  it('skips working backends that lack a required yes/no capability', async () => {
    const { candidates } = trio()
    const selection = await selectBackend({ candidates, env: {}, require: ['syncHostCalls'] })
    expect(selection.name).toBe('c')
    expect(selection.report.candidates[0]).toMatchObject({
      name: 'a',
      available: true,
      status: 'lacks-capability',
      reason: 'works here but does not meet options.require: syncHostCalls is false, required true',
    })
    await selection.backend.dispose()
  })

  it('accepts exact values and lists of values', async () => {
    const { candidates } = trio()
    const wasm = await selectBackend({ candidates, env: {}, require: { isolation: 'wasm' } })
    expect(wasm.name).toBe('b')
    const either = await selectBackend({ candidates, env: {}, require: { isolation: ['v8-isolate', 'wasm'], memoryLimit: true } })
    expect(either.name).toBe('b')
    await Promise.all([wasm.backend.dispose(), either.backend.dispose()])
  })

  it('combines with prefer: the preferred backend must still meet it', async () => {
    const { candidates } = trio()
    const selection = await selectBackend({ candidates, env: {}, prefer: ['a'], require: ['memoryLimit'] })
    expect(selection.name).toBe('b')
    await selection.backend.dispose()
  })

  it('BACKEND_UNAVAILABLE when no backend meets it', async () => {
    const { candidates } = trio()
    const error = await selectBackend({ candidates, env: {}, require: ['networkIsolation'] }).catch((e: unknown) => e)
    expect(isSandboxError(error, 'BACKEND_UNAVAILABLE')).toBe(true)
    expect((error as Error).message).toMatch(
      /with the required capabilities.*a: works here but does not meet options.require: networkIsolation is false/,
    )
  })

  it('a forced backend that lacks it fails loudly', async () => {
    const { candidates } = trio()
    const error = await selectBackend({ candidates, env: {}, backend: 'c', require: { isolation: 'process' } }).catch((e: unknown) => e)
    expect(isSandboxError(error, 'BACKEND_UNAVAILABLE')).toBe(true)
    expect((error as Error).message).toBe(
      'options.backend asks for c, which cannot be used here: works here but does not meet options.require: isolation is "v8-isolate", required "process". Fix: drop the requirement or ask for another backend',
    )
  })

  it('unknown capabilities and values are INVALID_OPTIONS', async () => {
    const { candidates } = trio()
    for (const require of [['fast'], ['isolation'], { isolation: 'vm' }, { memoryLimit: 'yes' }, 'memoryLimit', [1]]) {
      await expect(selectBackend({ candidates, env: {}, require: require as never })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' })
    }
  })
})
