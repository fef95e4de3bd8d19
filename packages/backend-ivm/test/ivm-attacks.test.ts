/**
 * Attacks aimed at this backend's own machinery: the isolated-vm callbacks that carry the
 * guest protocol, the built-ins the bridge relies on, and the ways a guest could keep an
 * isolate busy or exceed its memory limit unnoticed.
 */
import type { ToolSet } from '@cordon/core'
import { afterAll, describe, expect, test } from 'vitest'
import { codeOf, ivmSandbox, timed, valueOf } from './helpers.js'

const sandbox = ivmSandbox()
afterAll(() => sandbox.dispose())

/** Arguments every `ns.echo` call received: a stolen `call` callback would send "forged". */
const echoed: unknown[] = []
const tools: ToolSet = {
  'ns.echo': {
    execute: async (args: unknown) => {
      echoed.push(args)
      return args
    },
  },
  'ns.now': { sync: true, execute: () => 7 },
}

/**
 * Guest source that calls every function in `captured` the way a stolen host callback
 * would be called (done/log/call/timer argument shapes). A real bridge function would
 * forge the result, add a log entry or start a tool call.
 */
const FORGE = `
function forge(captured) {
  for (const f of captured) {
    if (typeof f !== 'function') continue
    for (const args of [['ok', '"forged"', 0], ['log', 'forged'], [999, 'ns.echo', '"forged"'], [1, 0]]) {
      try { f(...args) } catch (e) {}
    }
  }
}
`

function expectNotForged(result: Awaited<ReturnType<typeof sandbox.run>>, expected: unknown): void {
  expect(valueOf(result)).toEqual(expected)
  expect(result.logs.map((entry) => entry.message)).not.toContain('forged')
  expect(echoed).not.toContain('forged')
}

describe('bridge handles stay out of reach', () => {
  test('the guest global holds no bridge function or isolated-vm object', async () => {
    const result = await sandbox.run(`
const names = Reflect.ownKeys(globalThis).map(String)
const odd = names.filter((n) => /^\\$|ivm|isolated|^Reference$|Callback|ExternalCopy|cordon/i.test(n))
return { odd, wasm: typeof WebAssembly }`)
    expect(valueOf(result)).toEqual({ odd: [], wasm: 'undefined' })
  })

  test('overriding Promise, JSON, Array.prototype.push, Function.prototype.apply/call/bind and console before a tool call captures no bridge function', async () => {
    const result = await sandbox.run(
      `${FORGE}
const captured = []
const keep = (x) => { if (typeof x === 'function') captured[captured.length] = x }
const realApply = Function.prototype.apply, realCall = Function.prototype.call, realBind = Function.prototype.bind
Function.prototype.apply = function (self, args) { keep(this); keep(self); return Reflect.apply(this, self, args || []) }
Function.prototype.call = function (self, ...args) { keep(this); keep(self); return Reflect.apply(this, self, args) }
Function.prototype.bind = function (...a) { keep(this); return Reflect.apply(realBind, this, a) }
const push = Array.prototype.push
Array.prototype.push = function (...items) { items.forEach(keep); return Reflect.apply(push, this, items) }
const RealPromise = Promise
globalThis.Promise = function (executor) { keep(executor); return new RealPromise((res, rej) => { keep(res); keep(rej); executor(res, rej) }) }
Promise.prototype.then = function (a, b) { keep(a); keep(b); return RealPromise.prototype.then.call(this, a, b) }
const parse = JSON.parse, stringify = JSON.stringify
JSON.parse = function (...a) { keep(a[1]); return parse(...a) }
JSON.stringify = function (...a) { keep(a[1]); return stringify(...a) }
Object.defineProperty(Object.prototype, 'resolve', { set(v) { keep(v) }, configurable: true })
Object.defineProperty(Object.prototype, 'reject', { set(v) { keep(v) }, configurable: true })
const r1 = await ns.echo({ a: [1, 2] })
const r2 = ns.now()
console.log('after')
globalThis.console = { log: keep }
setTimeout(() => {}, 0)
Function.prototype.apply = realApply; Function.prototype.call = realCall; Function.prototype.bind = realBind
Array.prototype.push = push
forge(captured)
return [r1, r2]`,
      { tools },
    )
    expectNotForged(result, [{ a: [1, 2] }, 7])
    expect(result.logs.map((entry) => entry.message)).toEqual(['after'])
  })

  test('CallSite functions and receivers seen from getters, proxies and toJSON during bridge calls are not bridge functions', async () => {
    const result = await sandbox.run(
      `${FORGE}
const captured = []
Error.prepareStackTrace = (e, sites) => {
  for (const s of sites) { try { captured.push(s.getFunction(), s.getThis()) } catch (x) {} }
  return ''
}
const look = () => { new Error('x').stack }
const probe = { get a() { look(); return 1 }, toJSON() { look(); return 2 } }
const proxy = new Proxy({}, { ownKeys(t) { look(); return [] }, getPrototypeOf(t) { look(); return Object.prototype } })
try { await ns.echo(probe) } catch (e) {}
try { await ns.echo(proxy) } catch (e) {}
try { ns.now(proxy) } catch (e) {}
console.log(probe, proxy)
forge(captured.filter((f) => typeof f === 'function'))
return 'done'`,
      { tools },
    )
    expectNotForged(result, 'done')
  })

  test('a thenable or getter-laden result is handled inside the guest; nothing runs on the host', async () => {
    const thenable = await sandbox.run('return { then(resolve) { resolve(41 + 1) } }')
    expect(valueOf(thenable)).toBe(42)
    const getter = await sandbox.run("let hits = 0\nconst v = { get x() { hits++; return 'g' } }\nreturn v")
    // Whatever the value model makes of it, the host receives data, never a live getter.
    if (getter.ok) expect(Object.getOwnPropertyDescriptor(getter.value as object, 'x')?.get).toBeUndefined()
    const proxy = await sandbox.run("return new Proxy({}, { get() { throw new Error('trap') }, ownKeys() { throw new Error('trap') } })")
    expect(['OK', 'RUNTIME_ERROR']).toContain(codeOf(proxy))
  })
})

describe('tool results that arrive late', () => {
  test('a tool that resolves after the timeout changes nothing and the next run works', async () => {
    let aborted = false
    let resolvedLate = false
    const slow: ToolSet = {
      slow: {
        execute: (_args: unknown, ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener('abort', () => {
              aborted = true
            })
            setTimeout(() => {
              resolvedLate = true
              resolve('late')
            }, 400)
          }),
      },
    }
    const { value: result, ms } = await timed(() => sandbox.run('return await slow()', { tools: slow, timeoutMs: 100 }))
    expect(codeOf(result)).toBe('TIMEOUT')
    expect(ms).toBeLessThan(600)
    expect(aborted).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(resolvedLate).toBe(true)
    expect(valueOf(await sandbox.run('1 + 1'))).toBe(2)
  })

  test('a tool that rejects after the timeout changes nothing', async () => {
    const failing: ToolSet = {
      fail: { execute: () => new Promise((_, reject) => setTimeout(() => reject(new Error('late failure')), 200)) },
    }
    const result = await sandbox.run('try { await fail() } catch (e) { return "caught" }', { tools: failing, timeoutMs: 50 })
    expect(codeOf(result)).toBe('TIMEOUT')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(valueOf(await sandbox.run('2 + 2'))).toBe(4)
  })
})

describe('denial of service ends within timeoutMs + 500 ms', () => {
  const TIMEOUT_MS = 300
  const cases: [string, string][] = [
    ['a synchronous loop', 'for (;;) {}'],
    ['a microtask flood', 'const loop = () => Promise.resolve().then(loop)\nloop()\nawait new Promise(() => {})'],
    ['a microtask flood after the value', 'const loop = () => Promise.resolve().then(loop)\nloop()\nfor (;;) {}'],
    ['Atomics.wait forever', 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)'],
    ['a timer storm', 'const tick = () => { for (let i = 0; i < 100; i++) setTimeout(tick, 0) }\ntick()\nawait new Promise(() => {})'],
    ['a sync tool called forever', 'for (;;) now()'],
    ['a log flood', "for (;;) console.log('x'.repeat(100))"],
    ['an await that never settles beside a live interval', 'setInterval(() => {}, 50)\nawait new Promise(() => {})'],
    ['a catch-and-retry loop around stack overflows', 'const f = () => f()\nfor (;;) { try { f() } catch (e) {} }'],
  ]
  for (const [name, code] of cases) {
    test(name, async () => {
      const { value: result, ms } = await timed(() =>
        sandbox.run(code, { timeoutMs: TIMEOUT_MS, tools: { now: { sync: true, execute: () => 1 } }, maxToolCalls: 1_000_000 }),
      )
      expect(codeOf(result)).toBe('TIMEOUT')
      expect(ms).toBeLessThan(TIMEOUT_MS + 500)
      expect(valueOf(await sandbox.run('"still fine"'))).toBe('still fine')
    })
  }
})

describe('memory the isolate limit would not see', () => {
  test('WebAssembly is gone, so WebAssembly.Memory cannot bypass the limit', async () => {
    expect(valueOf(await sandbox.run('typeof WebAssembly'))).toBe('undefined')
  })

  test('resizable ArrayBuffers and growable SharedArrayBuffers cannot take more than memoryMb, resized or not', async () => {
    for (const code of [
      // Each committed in full, 320 MB in all: the limit counts every buffer by its maximum.
      'const k = []\nfor (let i = 0; i < 40; i++) { const b = new ArrayBuffer(1, { maxByteLength: 8 << 20 }); b.resize(8 << 20); new Uint8Array(b).fill(1); k.push(b) }\nreturn k.length',
      'const k = []\nfor (let i = 0; i < 40; i++) { const b = new SharedArrayBuffer(1, { maxByteLength: 8 << 20 }); b.grow(8 << 20); new Uint8Array(b).fill(1); k.push(b) }\nreturn k.length',
      // One maximum over the limit, caught by the guest.
      "try { new ArrayBuffer(1, { maxByteLength: 1 << 30 }) } catch (e) { return 'caught' }",
      "class Big extends ArrayBuffer {}\ntry { new Big(1, { maxByteLength: 1 << 30 }) } catch (e) { return 'caught' }",
    ]) {
      expect(codeOf(await sandbox.run(code, { memoryMb: 32 }))).toBe('MEMORY_LIMIT')
    }
  })

  test('a caught ArrayBuffer allocation failure still ends with MEMORY_LIMIT, also through TypedArray methods', async () => {
    for (const code of [
      'try { new ArrayBuffer(64 * 1024 * 1024) } catch (e) { return "caught" }',
      'const a = new Uint8Array(6 * 1024 * 1024)\nconst k = []\ntry { for (;;) k.push(a.toReversed()) } catch (e) { return "caught" }',
      'const a = new Uint8Array(6 * 1024 * 1024)\nconst k = []\ntry { for (;;) k.push(a.slice()) } catch (e) { return "caught" }',
    ]) {
      expect(codeOf(await sandbox.run(code, { memoryMb: 16 }))).toBe('MEMORY_LIMIT')
    }
  })

  test('a guest faking an allocation failure only ends its own run', async () => {
    const result = await sandbox.run(
      "try { new Uint8Array({ get length() { throw new RangeError('Array buffer allocation failed') } }) } catch (e) { return 'caught' }",
    )
    expect(['OK', 'MEMORY_LIMIT']).toContain(codeOf(result))
    expect(valueOf(await sandbox.run('1'))).toBe(1)
  })
})
