import { createSandbox } from '@cordon/core'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import type { QuickJS } from 'quickjs-wasi'
import { createQuickJSBackend } from '../src/index.js'
import { DEFAULT_MAX_STACK_SIZE_BYTES } from '../src/options.js'
import { WasiContext, internals } from '../src/wasi/wasi-context.js'
import { restoreWasiVm, takeWasiImage, type WasiBuild, type WasiImage } from '../src/wasi/wasi-image.js'
import { recycleCheck, recycleWasiVm } from '../src/wasi/wasi-recycle.js'
import { WASI_WASM_SPECIFIER, compileWasm, wasmUrlOf } from '../src/wasm-source.js'

// A one-off run's quickjs-wasi instance is made fresh again in place for a later run
// (wasi/wasi-recycle.ts) instead of a new instance: it must then be what a new restore gives.

const STACK = DEFAULT_MAX_STACK_SIZE_BYTES['quickjs-wasi']
let build: WasiBuild
let image: WasiImage

beforeAll(async () => {
  build = { wasi: await import('quickjs-wasi'), module: await compileWasm(await wasmUrlOf(WASI_WASM_SPECIFIER)) }
  image = (await takeWasiImage(build, STACK))!
  expect(image).toBeDefined()
})

const limits = (memoryLimit: number) => ({ maxStackSize: STACK, memoryLimit, interruptHandler: () => false })

function memoryOf(vm: QuickJS): Uint8Array {
  return new Uint8Array(internals(vm).exports.memory.buffer)
}

/** The memory's bytes, without the words every restored VM gets of its own (seed, time origin). */
function comparable(vm: QuickJS): Uint8Array {
  const bytes = memoryOf(vm).slice()
  for (const address of [image.seedAddress, image.timeOriginAddress, image.timeOriginValue.address]) bytes.fill(0, address, address + 8)
  return bytes
}

function evaluate(vm: QuickJS, code: string): unknown {
  const context = new WasiContext(build.wasi, vm)
  const result = context.evalCode(code, 'test.js')
  if (result.error) throw new Error(JSON.stringify(context.dump(result.error)))
  return result.value.consume((handle) => context.dump(handle))
}

describe('recycleWasiVm', () => {
  test('leaves a used VM byte for byte as a new restore, but for its own seed and time origin', async () => {
    const used = await restoreWasiVm(build, image, limits(64 << 20))
    const check = recycleCheck(used)
    const secret = 'secret-' + 'x'.repeat(200)
    expect(evaluate(used, `globalThis.kept = ['${secret}']; Array.prototype.leak = 1; Object.keys(globalThis).length`)).toEqual(
      expect.any(Number),
    )
    used.global.setProp(
      'hostLeftOver',
      used.newFunction('hostLeftOver', () => used.newNumber(1)),
    )
    expect(recycleWasiVm(build, used, image, check, limits(64 << 20))).toBe(true)
    const fresh = await restoreWasiVm(build, image, limits(64 << 20))
    expect(Buffer.compare(Buffer.from(comparable(used)), Buffer.from(comparable(fresh)))).toBe(0)
    expect(Buffer.from(memoryOf(used)).includes(Buffer.from(secret))).toBe(false)
    const pointer = (vm: QuickJS) => (internals(vm).exports as unknown as { __stack_pointer: WebAssembly.Global }).__stack_pointer.value
    expect(pointer(used)).toBe(pointer(fresh))
    expect((used as unknown as { hostCallbacks: Map<string, unknown> }).hostCallbacks.size).toBe(0)
    // And it runs as a new one: nothing of the earlier guest, a Math.random of its own.
    expect(evaluate(used, `[typeof kept, [].leak, typeof hostLeftOver]`)).toEqual(['undefined', undefined, 'undefined'])
    expect(evaluate(used, 'Math.random()')).not.toBe(evaluate(fresh, 'Math.random()'))
    fresh.dispose()
    used.dispose()
  })

  test('takes the memory cap it is given', async () => {
    // ~16 MiB of strings: within a 64 MiB cap, not within 8 MiB.
    const fill = `const a = []; for (let i = 0; i < 256; i++) a.push('y'.repeat(1 << 16) + i); a.length`
    const vm = await restoreWasiVm(build, image, limits(64 << 20))
    expect(recycleWasiVm(build, vm, image, recycleCheck(vm), limits(8 << 20))).toBe(true)
    expect(() => evaluate(vm, fill)).toThrow(/InternalError/)
    vm.dispose()
    const roomy = await restoreWasiVm(build, image, limits(8 << 20))
    expect(recycleWasiVm(build, roomy, image, recycleCheck(roomy), limits(64 << 20))).toBe(true)
    expect(evaluate(roomy, fill)).toBe(256)
    roomy.dispose()
  })

  test('refuses a VM whose memory grew past the image, or whose function table changed', async () => {
    const grown = await restoreWasiVm(build, image, limits(64 << 20))
    const check = recycleCheck(grown)
    evaluate(grown, `globalThis.big = 'z'.repeat(8 << 20).length`)
    expect(recycleWasiVm(build, grown, image, check, limits(64 << 20))).toBe(false)
    grown.dispose()
    const changed = await restoreWasiVm(build, image, limits(64 << 20))
    const before = recycleCheck(changed)
    const table = (internals(changed).exports as unknown as { __indirect_function_table: WebAssembly.Table }).__indirect_function_table
    table.set(1, table.get(2))
    expect(recycleWasiVm(build, changed, image, before, limits(64 << 20))).toBe(false)
  })
})

describe('a sandbox recycles its engines', () => {
  const sandboxes: ReturnType<typeof createSandbox>[] = []
  afterAll(() => Promise.all(sandboxes.map((sandbox) => sandbox.dispose())))

  test('runs one after another restore few instances, and each still starts clean', async () => {
    const sandbox = createSandbox(createQuickJSBackend({ engine: 'quickjs-wasi', thread: 'inline' }))
    sandboxes.push(sandbox)
    expect(await sandbox.run('1')).toMatchObject({ ok: true })
    // The image is taken in the background after the first engine (the shipped one is for the bundle).
    await new Promise((resolve) => setTimeout(resolve, 500))
    const restores = vi.spyOn(build.wasi.QuickJS, 'restore')
    try {
      const draws = new Set<unknown>()
      for (let i = 0; i < 20; i++) {
        const result = await sandbox.run(
          `const clean = typeof marker === 'undefined' && [].polluted === undefined
globalThis.marker = ${i}; Array.prototype.polluted = ${i}
return [clean, Math.random()]`,
        )
        expect(result).toMatchObject({ ok: true, value: [true, expect.any(Number)] })
        draws.add((result as { value: [boolean, number] }).value[1])
        await new Promise((resolve) => setTimeout(resolve, 2))
      }
      expect(draws.size).toBe(20)
      // A pool of one refilled per run would restore 20 times.
      expect(restores.mock.calls.length).toBeLessThan(5)
    } finally {
      restores.mockRestore()
    }
  })
})
