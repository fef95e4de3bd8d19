import { describe, expect, test } from 'vitest'
import { createEngineLoader } from '../src/engine-loader.js'
import type { IvmCompileOptions, IvmIsolate, IvmModule, IvmScript } from '../src/ivm-types.js'
import { ivmSandbox, valueOf } from './helpers.js'

/** The real isolated-vm, with every isolate's compileScript watched (and V8's answer on the cache overridden when asked). */
async function watchedModule(rejectCache: () => boolean) {
  const load = await createEngineLoader(undefined)()
  if (!load.ok) throw new Error(load.message)
  const real = load.ivm
  const bootCompiles: IvmCompileOptions[] = []
  class WatchedIsolate extends (real.Isolate as unknown as new (options: object) => IvmIsolate) {
    override async compileScript(code: string, options?: IvmCompileOptions): Promise<IvmScript> {
      const script = await super.compileScript(code, options)
      if (options?.filename !== 'cordon-runtime.js') return script
      bootCompiles.push({ ...options })
      if (options.cachedData === undefined || !rejectCache()) return script
      return {
        cachedDataRejected: true,
        run: (context, runOptions) => script.run(context, runOptions),
        runSync: (context, runOptions) => script.runSync(context, runOptions),
        release: () => script.release(),
      }
    }
  }
  const ivm = { Isolate: WatchedIsolate, Callback: real.Callback, ExternalCopy: real.ExternalCopy } as unknown as IvmModule
  return { ivm, bootCompiles }
}

describe("the guest runtime's code cache", () => {
  test('the first isolate makes it, later isolates compile from it', async () => {
    const { ivm, bootCompiles } = await watchedModule(() => false)
    const sandbox = ivmSandbox({ isolatedVm: ivm, poolSize: 0 })
    for (let i = 0; i < 3; i++) expect(valueOf(await sandbox.run('return 6 * 7'))).toBe(42)
    await sandbox.dispose()
    expect(bootCompiles.map((o) => (o.produceCachedData === true ? 'make' : o.cachedData !== undefined ? 'use' : 'plain'))).toEqual([
      'make',
      'use',
      'use',
    ])
  })

  test('a cache V8 refuses is made anew, and the runs are unaffected', async () => {
    let reject = true
    const { ivm, bootCompiles } = await watchedModule(() => reject)
    const sandbox = ivmSandbox({ isolatedVm: ivm, poolSize: 0 })
    expect(valueOf(await sandbox.run('return 1'))).toBe(1)
    expect(valueOf(await sandbox.run('return 2'))).toBe(2)
    reject = false
    expect(valueOf(await sandbox.run('return 3'))).toBe(3)
    await sandbox.dispose()
    const kinds = bootCompiles.map((o) => (o.produceCachedData === true ? 'make' : 'use'))
    expect(kinds).toEqual(['make', 'use', 'make', 'use'])
  })
})
