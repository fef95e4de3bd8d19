import { createSandbox, isSandboxError } from '@cordon/core'
import type { QuickJSSyncVariant } from 'quickjs-emscripten-core'
import { describe, expect, test } from 'vitest'
import { INLINE_CAPABILITIES, QUICKJS_CAPABILITIES, createQuickJSBackend } from '../src/index.js'
import { codeOf, executeDirect } from './helpers/execute.js'

const realVariant = () => import('@jitl/quickjs-wasmfile-release-sync')
const wasmUrl = () => new URL(import.meta.resolve('@jitl/quickjs-wasmfile-release-sync/wasm'))

describe('construction', () => {
  test('does no I/O: a variant that cannot load fails only when a run needs it', async () => {
    let loads = 0
    const backend = createQuickJSBackend({
      thread: 'inline',
      variant: () => {
        loads++
        throw new Error('Cannot find package @jitl/nope')
      },
    })
    expect(loads).toBe(0)
    expect(backend.capabilities).toEqual(INLINE_CAPABILITIES)
    const run = await executeDirect(backend, 'return 1')
    expect(codeOf(run)).toBe('BACKEND_UNAVAILABLE')
    expect(run.outcome.ok ? '' : run.outcome.error.message).toMatch(
      /Cannot find package @jitl\/nope.*npm install @jitl\/quickjs-wasmfile-release-sync/,
    )
  })

  test.each([
    [{ poolSize: -1 }],
    [{ poolSize: 1.5 }],
    [{ maxStackSizeBytes: 10 }],
    [{ engineImage: 'yes' }],
    [null],
    [{ thread: 'main' }],
    [{ workers: 0 }],
    [{ workers: 2.5 }],
    [{ engine: 'quickjs-ng' }],
    [{ engine: 'quickjs-wasi', variant: '@jitl/quickjs-wasmfile-debug-sync' }],
    [{ engine: 'quickjs-wasi', maxStackSizeBytes: 1024 * 1024 }],
  ])('rejects bad options %j', (options) => {
    let thrown: unknown
    try {
      createQuickJSBackend(options as never)
    } catch (error) {
      thrown = error
    }
    expect(isSandboxError(thrown, 'INVALID_OPTIONS')).toBe(true)
  })

  test('the capabilities manifest is plain JSON', () => {
    expect(JSON.parse(JSON.stringify(QUICKJS_CAPABILITIES))).toEqual(QUICKJS_CAPABILITIES)
  })

  test('worker mode is the default and preemptive; inline mode says it is not', () => {
    expect(createQuickJSBackend().capabilities).toEqual(QUICKJS_CAPABILITIES)
    expect(QUICKJS_CAPABILITIES.preemptive).toBe(true)
    expect(createQuickJSBackend({ thread: 'inline' }).capabilities).toEqual(INLINE_CAPABILITIES)
    expect(INLINE_CAPABILITIES.preemptive).toBe(false)
  })

  test('in worker mode a variant object or function is refused at construction, saying what to pass', () => {
    let thrown: unknown
    try {
      createQuickJSBackend({ variant: realVariant })
    } catch (error) {
      thrown = error
    }
    expect(isSandboxError(thrown, 'INVALID_OPTIONS')).toBe(true)
    expect((thrown as { fix?: string }).fix).toMatch(/thread: 'inline'/)
  })
})

describe('loading', () => {
  test('a failed load is not cached: the next run tries again', async () => {
    let attempt = 0
    const backend = createQuickJSBackend({
      thread: 'inline',
      variant: async () => {
        if (++attempt === 1) throw new Error('transient')
        return realVariant()
      },
      wasmModule: wasmUrl,
    })
    expect(codeOf(await executeDirect(backend, 'return 1'))).toBe('BACKEND_UNAVAILABLE')
    expect(await executeDirect(backend, 'return 1')).toMatchObject({ outcome: { ok: true } })
    await backend.dispose()
  })

  test('an asyncify variant is refused with the reason', async () => {
    const asyncify = { type: 'async', importFFI: async () => ({}), importModuleLoader: async () => ({}) } as unknown as QuickJSSyncVariant
    const run = await executeDirect(createQuickJSBackend({ thread: 'inline', variant: asyncify }), 'return 1')
    expect(codeOf(run)).toBe('BACKEND_UNAVAILABLE')
    expect(run.outcome.ok ? '' : run.outcome.error.message).toMatch(/sync variant/)
  })

  test('a wasmModule that is not WebAssembly is BACKEND_UNAVAILABLE', async () => {
    const run = await executeDirect(
      createQuickJSBackend({ thread: 'inline', variant: realVariant, wasmModule: new Uint8Array([1, 2, 3]) }),
      'return 1',
    )
    expect(codeOf(run)).toBe('BACKEND_UNAVAILABLE')
  })

  test('the wasm can be injected as bytes or as a compiled module', async () => {
    const { readFile } = await import('node:fs/promises')
    const bytes = new Uint8Array(await readFile(wasmUrl()))
    for (const wasmModule of [bytes, await WebAssembly.compile(bytes)]) {
      const sandbox = createSandbox(createQuickJSBackend({ thread: 'inline', variant: realVariant, wasmModule }))
      expect(await sandbox.run('6 * 7')).toMatchObject({ ok: true, value: 42 })
      await sandbox.dispose()
    }
  })

  test('a custom variant without wasmModule works (Emscripten loads its file each run)', async () => {
    const sandbox = createSandbox(createQuickJSBackend({ thread: 'inline', variant: realVariant, poolSize: 0 }))
    expect(await sandbox.run('6 * 7')).toMatchObject({ ok: true, value: 42 })
    await sandbox.dispose()
  })
})

describe('loading in worker threads', () => {
  const variant = '@jitl/quickjs-wasmfile-release-sync'

  test('a variant named by its package runs, with or without wasmModule', async () => {
    for (const options of [{ variant }, { variant, wasmModule: wasmUrl }]) {
      const sandbox = createSandbox(createQuickJSBackend(options))
      expect(await sandbox.run('6 * 7')).toMatchObject({ ok: true, value: 42 })
      await sandbox.dispose()
    }
  })

  test('a variant that cannot be imported is BACKEND_UNAVAILABLE, with the reason', async () => {
    const backend = createQuickJSBackend({ variant: '@jitl/no-such-variant' })
    const run = await executeDirect(backend, 'return 1')
    expect(codeOf(run)).toBe('BACKEND_UNAVAILABLE')
    expect(run.outcome.ok ? '' : run.outcome.error.message).toMatch(/no-such-variant/)
    await backend.dispose()
  })

  test('the wasm can be injected as bytes or as a compiled module, and bad bytes are BACKEND_UNAVAILABLE', async () => {
    const { readFile } = await import('node:fs/promises')
    const bytes = new Uint8Array(await readFile(wasmUrl()))
    for (const wasmModule of [bytes, await WebAssembly.compile(bytes)]) {
      const sandbox = createSandbox(createQuickJSBackend({ variant, wasmModule }))
      expect(await sandbox.run('6 * 7')).toMatchObject({ ok: true, value: 42 })
      await sandbox.dispose()
    }
    const broken = createQuickJSBackend({ variant, wasmModule: new Uint8Array([1, 2, 3]) })
    expect(codeOf(await executeDirect(broken, 'return 1'))).toBe('BACKEND_UNAVAILABLE')
    await broken.dispose()
  })
})

describe('pool', () => {
  test('without a pool every run still gets its own engine', async () => {
    const sandbox = createSandbox(createQuickJSBackend({ poolSize: 0 }))
    expect(await sandbox.run('globalThis.seen = (globalThis.seen ?? 0) + 1\nreturn seen')).toMatchObject({ ok: true, value: 1 })
    expect(await sandbox.run('globalThis.seen = (globalThis.seen ?? 0) + 1\nreturn seen')).toMatchObject({ ok: true, value: 1 })
    await sandbox.dispose()
  })

  test('runs with different memoryMb each get an engine of their own size', async () => {
    const sandbox = createSandbox(createQuickJSBackend({ poolSize: 2 }))
    const program = 'const keep = []\nfor (let i = 0; i < 40; i++) keep.push(new Uint8Array(1024 * 1024).fill(1))\nreturn keep.length'
    for (let i = 0; i < 3; i++) {
      expect((await sandbox.run(program, { memoryMb: 24 })).ok).toBe(false)
      expect(await sandbox.run(program, { memoryMb: 80 })).toMatchObject({ ok: true, value: 40 })
    }
    await sandbox.dispose()
  })
})
