/**
 * The QuickJS build (README, "Which QuickJS build"): the buffer guard in front of the default
 * build is what keeps a guest from reading past a buffer it shrank, typed arrays behave as they
 * do without it, and the other build of quickjs-emscripten 0.32.0, quickjs-ng, works when chosen:
 * its failures are classified, and its engines start from an engine image yet keep their own
 * clock and Math.random.
 */
import { createSandbox, type RunResult } from '@cordon/core'
import { newQuickJSWASMModuleFromVariant, type QuickJSSyncVariant } from 'quickjs-emscripten-core'
import { afterAll, describe, expect, test } from 'vitest'
import { isOutOfMemory, readThrown } from '../src/engine-failure.js'
import { engineLoader } from '../src/engine-loader.js'
import { createFreshEngine, engineImage, releaseFreshEngine } from '../src/fresh-engine.js'
import { createQuickJSBackend, type QuickJSBackendOptions } from '../src/index.js'
import { resolveOptions } from '../src/options.js'

const builds: Record<string, QuickJSBackendOptions> = {
  'QuickJS 2025-09-13 (default)': {},
  // By name: in worker mode (the default) each worker imports the build itself.
  'quickjs-ng 0.12.1': {
    variant: '@jitl/quickjs-ng-wasmfile-release-sync',
    wasmModule: () => new URL(import.meta.resolve('@jitl/quickjs-ng-wasmfile-release-sync/wasm')),
  },
}

async function rawVariant(options: QuickJSBackendOptions): Promise<QuickJSSyncVariant> {
  const name = typeof options.variant === 'string' ? options.variant : '@jitl/quickjs-wasmfile-release-sync'
  return ((await import(name)) as { default: QuickJSSyncVariant }).default
}

/** Evaluates `code` (ending in an expression that is a string) on the engine with nothing of cordon's in front. */
async function evalRaw(options: QuickJSBackendOptions, code: string): Promise<string> {
  const module = await newQuickJSWASMModuleFromVariant(await rawVariant(options))
  const context = module.newContext()
  try {
    return context.unwrapResult(context.evalCode(code)).consume((handle) => context.getString(handle))
  } finally {
    context.dispose()
  }
}

function valueOf(result: RunResult): unknown {
  if (!result.ok) throw new Error(result.error.code + ': ' + result.error.message)
  return result.value
}

/** bellard/quickjs #478: the buffer is emptied while the engine reads newTarget.prototype. */
const EMPTIED_VIEW = `(() => {
  const buffer = new ArrayBuffer(64, { maxByteLength: 64 })
  new Uint8Array(buffer).fill(0xab)
  const newTarget = function () {}.bind()
  Object.defineProperty(newTarget, 'prototype', { get() { buffer.resize(0); return Uint8Array.prototype } })
  const view = Reflect.construct(Uint8Array, [buffer], newTarget)
  return JSON.stringify({ length: view.length, first: view[0] })
})()`

/** Typed-array behaviour the guard wraps, in the ways programs use it. */
const TYPED_ARRAYS = `(() => {
  class Bytes extends Uint8Array { sum() { return this.reduce((a, b) => a + b, 0) } }
  const bytes = new Bytes([1, 2, 3])
  function Plain() {}
  Plain.prototype = Object.create(Uint16Array.prototype)
  const viaReflect = Reflect.construct(Uint16Array, [2], Plain)
  const names = (fs) => fs.map((f) => { try { f(); return 'none' } catch (e) { return e.name } })
  const order = []
  new Uint8Array(2).with({ valueOf() { order.push('index'); return 0 } }, { valueOf() { order.push('value'); return 1 } })
  const sorted = new Uint8Array([2, 1])
  return JSON.stringify({
    identity: [Uint8Array.prototype.constructor === Uint8Array, new Uint8Array(1).constructor === Uint8Array, new Uint8Array(2) instanceof Uint8Array],
    subclass: [bytes.length, bytes.sum(), Object.getPrototypeOf(bytes) === Bytes.prototype, bytes.slice(1) instanceof Bytes],
    reflect: [Object.getPrototypeOf(viaReflect) === Plain.prototype, viaReflect.length],
    statics: [Uint8Array.name, Uint8Array.length, Float64Array.BYTES_PER_ELEMENT, /native code/.test(Function.prototype.toString.call(Uint8Array))],
    from: [Array.from(Uint8Array.from([1, 2, 300])), Array.from(Int16Array.of(-1, 2))],
    with: [Array.from(new Uint8Array([1, 2, 3]).with(1, 300)), Array.from(new Uint8Array([1, 2, 3]).with(-1, { valueOf() { return 9 } })), String(Array.from(new BigInt64Array([1n, 2n]).with(0, 5n))), order],
    withErrors: names([() => new BigInt64Array(1).with(0, 5), () => new Uint8Array(1).with(3, 1), () => Uint8Array.prototype.with.call([1], 0, 1), () => new Uint8Array(1).with(1n, 1)]),
    sort: [Array.from(new Float64Array([3, 1, 2]).sort((a, b) => b - a)), Array.from(new Uint8Array([21, 12, 11, 22]).sort((a, b) => (a % 10) - (b % 10))), Array.from(new Int8Array([3, -1, 2]).sort()), sorted.sort((a, b) => a - b) === sorted],
    sortErrors: names([() => new Uint8Array(2).sort(1), () => Uint8Array.prototype.sort.call([2, 1], (a, b) => a - b)]),
    ctorErrors: names([() => Uint8Array(2), () => new Uint8Array(-1), () => Reflect.construct(Uint8Array, [1], Math.max)]),
  })
})()`

describe.each(Object.entries(builds))('%s', (_, options) => {
  const sandboxes = {
    worker: createSandbox(createQuickJSBackend(options)),
    inline: createSandbox(createQuickJSBackend({ ...options, thread: 'inline' })),
  }
  afterAll(async () => {
    for (const sandbox of Object.values(sandboxes)) await sandbox.dispose()
  })

  test.each(Object.entries(sandboxes))('%s: a view made while its buffer is emptied reads as empty', async (_, sandbox) => {
    expect(JSON.parse(valueOf(await sandbox.run(EMPTIED_VIEW)) as string)).toEqual({ length: 0 })
  })

  test.each(Object.entries(sandboxes))('%s: typed arrays behave as on the engine without the guard', async (_, sandbox) => {
    const raw = await evalRaw(options, TYPED_ARRAYS)
    expect(valueOf(await sandbox.run(TYPED_ARRAYS))).toBe(raw)
    expect(JSON.parse(raw)).toMatchObject({ identity: [true, true, true], subclass: [3, 6, true, true], reflect: [true, 2] })
  })

  test('a thrown null reads as null even after the memory grew (how QuickJS reports an allocation it could not make)', async () => {
    const module = await newQuickJSWASMModuleFromVariant(await rawVariant(options))
    const context = module.newContext()
    try {
      const grown = context.evalCode("globalThis.keep = 'x'.repeat(32 * 1024 * 1024)")
      grown.dispose()
      const thrown = context.evalCode('throw null')
      if (!thrown.error) throw new Error('expected a throw')
      const info = thrown.error.consume((handle) => readThrown(context, handle))
      expect(info).toEqual({ message: 'null' })
      expect(isOutOfMemory(info)).toBe(true)
      const syntax = context.evalCode('let = = 1', 'guest.js')
      if (!syntax.error) throw new Error('expected a syntax error')
      expect(syntax.error.consume((handle) => readThrown(context, handle))).toMatchObject({ name: 'SyntaxError' })
    } finally {
      context.dispose()
    }
  })
})

test('without the guard, QuickJS 2025-09-13 lets that view read the bytes the buffer no longer has (the reason for the guard)', async () => {
  const seen = JSON.parse(await evalRaw({}, EMPTIED_VIEW)) as { length: number; first: number }
  expect(seen).toEqual({ length: 64, first: 0xab })
})

describe('quickjs-ng 0.12.1, chosen with { variant, wasmModule }', () => {
  const options = builds['quickjs-ng 0.12.1'] as QuickJSBackendOptions
  const sandbox = createSandbox(createQuickJSBackend(options))
  afterAll(() => sandbox.dispose())

  test.each([
    ['a busy loop past the deadline', 'for (;;) {}', { timeoutMs: 300 }, 'TIMEOUT'],
    ['running out of memory', 'const a = []\nfor (;;) a.push(new Array(1e4).fill(1))', { memoryMb: 32 }, 'MEMORY_LIMIT'],
    ['a syntax error', 'let = = 1', {}, 'SYNTAX_ERROR'],
    ['uncaught runaway recursion', 'function f() { f() }\nf()', {}, 'RUNTIME_ERROR'],
  ])('%s ends with its code', async (_, code, limits, expected) => {
    const result = await sandbox.run(code, limits)
    expect(result.ok ? 'ok' : result.error.code).toBe(expected)
    expect(valueOf(await sandbox.run('1 + 1'))).toBe(2)
  })

  test('runaway recursion is a catchable RangeError, named as V8 names it', async () => {
    const code = 'function f() { f() }\ntry { f() } catch (e) { return [e.name, e.message] }'
    expect(valueOf(await sandbox.run(code))).toEqual(['RangeError', 'Maximum call stack size exceeded'])
  })

  test('engines start from an engine image, each with its own Math.random and performance clock', async () => {
    const settings = resolveOptions(options)
    const engine = await engineLoader(settings)()
    expect(await engineImage(engine, settings.maxStackSizeBytes)).toBeDefined()
    const seen: string[] = []
    for (let i = 0; i < 3; i++) {
      const fresh = await createFreshEngine(engine, engine.capPagesFor(32), settings.maxStackSizeBytes, true)
      try {
        expect(fresh.context.typeof(fresh.runtimeFactory)).toBe('function')
        const result = fresh.context.evalCode('[Math.random(), performance.timeOrigin].join()', 'check.js', { type: 'global' })
        if (result.error) throw new Error('the check threw')
        seen.push(result.value.consume((handle) => fresh.context.getString(handle)))
      } finally {
        releaseFreshEngine(fresh)
      }
    }
    const randoms = seen.map((pair) => pair.split(',')[0])
    const origins = seen.map((pair) => pair.split(',')[1])
    expect(new Set(randoms).size).toBe(3)
    // Written over from the image, every engine would carry the image's time origin.
    expect(new Set(origins).size).toBe(3)
  })
})
