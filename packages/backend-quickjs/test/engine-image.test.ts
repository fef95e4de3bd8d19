import { createSandbox } from '@cordon/core'
import type { EngineContext } from '../src/engine-api.js'
import { describe, expect, test } from 'vitest'
import { applyEngineImage } from '../src/engine-image.js'
import { engineLoader } from '../src/engine-loader.js'
import { adoptEngineImage, createFreshEngine, engineImage, enginePreparation, releaseFreshEngine } from '../src/fresh-engine.js'
import { createQuickJSBackend } from '../src/index.js'
import { MemoryGuard } from '../src/memory-guard.js'
import { resolveOptions } from '../src/options.js'

const release = resolveOptions({})
const debug = resolveOptions({
  thread: 'inline',
  variant: () => import('@jitl/quickjs-wasmfile-debug-sync'),
  wasmModule: () => new URL(import.meta.resolve('@jitl/quickjs-wasmfile-debug-sync/wasm')),
})

function evalString(context: Pick<EngineContext, 'evalCode' | 'getString'>, code: string): string {
  const result = context.evalCode(code, 'check.js', { type: 'global' })
  if (result.error) throw new Error(`${code} threw`)
  return result.value.consume((value) => context.getString(value))
}

describe('engine image', () => {
  const settings = release
  const load = engineLoader(settings)

  test('is taken, and a patched bare engine holds the guest runtime and a seed of its own', async () => {
    const engine = await load()
    const image = await engineImage(engine, settings.maxStackSizeBytes)
    expect(image).toBeDefined()
    if (image === undefined) return
    // The runtime's heap, not the whole 16 MiB memory.
    expect(image.patches.reduce((sum, patch) => sum + patch.bytes.length, 0)).toBeLessThan(2 * 1024 * 1024)
    expect(image.seedAddress).toBeGreaterThanOrEqual(image.contextPointer)

    const steps = enginePreparation(settings.maxStackSizeBytes)
    const firsts: string[] = []
    for (let i = 0; i < 2; i++) {
      const fresh = await createFreshEngine(engine, engine.capPagesFor(32), settings.maxStackSizeBytes, true)
      try {
        expect(fresh.context.typeof(fresh.runtimeFactory)).toBe('function')
        // The factory was taken from the global object before any guest code exists.
        expect(evalString(fresh.context, 'typeof globalThis.__cordonRuntimeFactory')).toBe('undefined')
        firsts.push(evalString(fresh.context, 'String(Math.random())'))
      } finally {
        releaseFreshEngine(fresh)
      }
    }
    expect(new Set(firsts).size).toBe(2)

    // A bare engine becomes a prepared one only through the image.
    const guard = new MemoryGuard(Math.max(engine.initialPages, image.pages), engine.capPagesFor(32))
    const { runtime, context } = steps.makeBare(await engine.instantiate(guard))
    try {
      expect(steps.check(context)).toBe(false)
      expect(applyEngineImage(image, guard.memory, runtime, context)).toBe(true)
      expect(steps.check(context)).toBe(true)
    } finally {
      context.dispose()
      runtime.dispose()
    }
  })

  test('is taken a slice at a time: the thread (the host’s, inline) turns its event loop in between', async () => {
    const engine = await load()
    // A stack size no other test uses: an image of its own, taken now.
    const stackBytes = settings.maxStackSizeBytes + 4096
    let turns = 0
    let counting = true
    const count = () => {
      if (!counting) return
      turns++
      setImmediate(count)
    }
    setImmediate(count)
    const image = await engineImage(engine, stackBytes)
    counting = false
    expect(image).toBeDefined()
    // Two comparisons of at least the static data and the C stack below the heap, 1 MiB per turn
    // (one copy and one pass each held the thread for hundreds of ms on a fresh VM, where first
    // touches of memory are slow).
    expect(turns).toBeGreaterThanOrEqual((2 * engine.heapStartBytes) / (1024 * 1024))
  })

  test('compares only below the heaps, and misses nothing: a patched engine is one that evaluated the sources', async () => {
    const engine = await load()
    const image = await engineImage(engine, settings.maxStackSizeBytes)
    if (image === undefined) throw new Error('no image')
    // Not the untouched top of a 16 MiB memory (reading a page first costs as much as writing it).
    expect(image.comparedBytes).toBeLessThan(engine.initialPages * 65536)
    expect(image.comparedBytes).toBeGreaterThan(engine.heapStartBytes)
    const steps = enginePreparation(settings.maxStackSizeBytes)
    const made = async (patch: boolean) => {
      const guard = new MemoryGuard(Math.max(engine.initialPages, image.pages), engine.capPagesFor(32))
      const engineMade = steps.makeBare(await engine.instantiate(guard))
      if (patch) expect(applyEngineImage(image, guard.memory, engineMade.runtime, engineMade.context)).toBe(true)
      else steps.evaluate(engineMade.context, engineMade.runtime)
      return { ...engineMade, bytes: new BigUint64Array(guard.memory.buffer) }
    }
    const patched = await made(true)
    const evaluated = await made(false)
    try {
      expect(patched.bytes.length).toBe(evaluated.bytes.length)
      // Above the compared part, both are untouched; below it they differ only in each instance's
      // own words (Math.random's state, the time origin, the C stack's leftovers) and the
      // allocator's words the image's measurement left (see writtenBelow).
      const differing: number[] = []
      for (let i = 0; i < evaluated.bytes.length; i++) if (patched.bytes[i] !== evaluated.bytes[i]) differing.push(i * 8)
      expect(differing.filter((at) => at >= image.comparedBytes)).toEqual([])
      expect(differing.length).toBeLessThanOrEqual(72)
      expect(steps.check(patched.context)).toBe(true)
    } finally {
      for (const { context, runtime } of [patched, evaluated]) {
        context.dispose()
        runtime.dispose()
      }
    }
  })

  test('taken by one engine, it is adopted by another of the same build after a checked copy; a broken one is taken again', async () => {
    const engine = await load()
    const image = await engineImage(engine, settings.maxStackSizeBytes)
    if (image === undefined) throw new Error('no image')
    // Engines of their own (a custom wasmModule is not the process-wide default engine).
    const ownEngine = () =>
      engineLoader(resolveOptions({ wasmModule: () => new URL(import.meta.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')) }))()
    const adopting = await ownEngine()
    adoptEngineImage(adopting, settings.maxStackSizeBytes, image)
    expect(await engineImage(adopting, settings.maxStackSizeBytes)).toBe(image)
    const fresh = await createFreshEngine(adopting, adopting.capPagesFor(32), settings.maxStackSizeBytes, true)
    expect(fresh.context.typeof(fresh.runtimeFactory)).toBe('function')
    releaseFreshEngine(fresh)

    const refusing = await ownEngine()
    const broken = { ...image, runtimePointer: image.runtimePointer + 16 }
    adoptEngineImage(refusing, settings.maxStackSizeBytes, broken)
    const taken = await engineImage(refusing, settings.maxStackSizeBytes)
    expect(taken).toBeDefined()
    expect(taken).not.toBe(broken)
    expect(taken?.runtimePointer).toBe(image.runtimePointer)
  })

  test('a bare engine whose pointers are not the image’s is left alone', async () => {
    const engine = await load()
    const image = await engineImage(engine, settings.maxStackSizeBytes)
    if (image === undefined) throw new Error('no image')
    const guard = new MemoryGuard(Math.max(engine.initialPages, image.pages), engine.capPagesFor(32))
    const module = await engine.instantiate(guard)
    // One allocation before the runtime moves every pointer after it.
    const extra = module.newRuntime()
    const { runtime, context } = enginePreparation(settings.maxStackSizeBytes).makeBare(module)
    try {
      const before = new Uint8Array(guard.memory.buffer).slice()
      expect(applyEngineImage(image, guard.memory, runtime, context)).toBe(false)
      // (16 MiB: compared as one buffer, not element by element)
      expect(Buffer.compare(new Uint8Array(guard.memory.buffer), before)).toBe(0)
    } finally {
      context.dispose()
      runtime.dispose()
      extra.dispose()
    }
  })
})

test('QuickJS’s debug build gets none: its image would be ~38 MB to write, more than evaluating costs', async () => {
  const engine = await engineLoader(debug)()
  expect(await engineImage(engine, debug.maxStackSizeBytes)).toBeUndefined()
  // ...and its engines evaluate the guest runtime themselves.
  const fresh = await createFreshEngine(engine, engine.capPagesFor(128), debug.maxStackSizeBytes, true)
  expect(fresh.context.typeof(fresh.runtimeFactory)).toBe('function')
  releaseFreshEngine(fresh)
})

describe('engineImage option', () => {
  test.each([true, false])(
    'engineImage %s: one-off runs each draw their own Math.random and see no trace of the image',
    async (useImage) => {
      // The backend shares the process-wide default engine; with its image taken, every run's
      // engine (poolSize 0: made for the run) starts from it when useImage is true.
      const engine = await engineLoader(release)()
      expect(await engineImage(engine, release.maxStackSizeBytes)).toBeDefined()
      const sandbox = createSandbox(createQuickJSBackend({ poolSize: 0, engineImage: useImage }))
      try {
        const values: unknown[] = []
        for (let i = 0; i < 12; i++) {
          const result = await sandbox.run(
            'return [Math.random(), Object.getOwnPropertyNames(globalThis).filter((name) => name.startsWith("__cordon"))]',
          )
          expect(result.ok).toBe(true)
          if (!result.ok) return
          const [random, traces] = result.value as [number, string[]]
          expect(traces).toEqual([])
          values.push(random)
        }
        expect(new Set(values).size).toBe(values.length)
      } finally {
        await sandbox.dispose()
      }
    },
  )
})
