import type { ToolSet } from '@cordon/core'
import type { BackendSession } from '@cordon/core/backend'
import { afterAll, describe, expect, test } from 'vitest'
import { createIvmBackend } from '../src/index.js'
import { codeOf, ivmSandbox, rawRequest as request, timed, valueOf } from './helpers.js'

const sandbox = ivmSandbox()
afterAll(() => sandbox.dispose())

async function openRaw(): Promise<{ session: BackendSession; dispose: () => Promise<void> }> {
  const backend = createIvmBackend()
  const session = await backend.openSession!({ memoryMb: 32 })
  return { session, dispose: () => backend.dispose() }
}

describe('a backend session', () => {
  test('dispose() during a run ends it promptly with ABORTED and frees the isolate; dispose is idempotent', async () => {
    const { session, dispose } = await openRaw()
    expect(await session.execute(request('globalThis.kept = 1\nreturn 1'))).toMatchObject({ ok: true })
    for (const body of ['while (true) {}', 'await new Promise((resolve) => setTimeout(resolve, 3600000))']) {
      const { session: busy } = await openRaw()
      const running = timed(() => busy.execute(request(body)))
      await new Promise((resolve) => setTimeout(resolve, 50))
      await busy.dispose()
      await busy.dispose()
      const { value: outcome, ms } = await running
      expect(outcome).toMatchObject({ ok: false, error: { code: 'ABORTED' } })
      expect(ms).toBeLessThan(1_000)
      expect(busy.alive).toBe(false)
      expect(await busy.execute(request('return 1'))).toMatchObject({ ok: false, error: { code: 'BACKEND_CRASHED' } })
      await expect(busy.memoryUsage()).rejects.toMatchObject({ code: 'DISPOSED' })
    }
    // The other session was not disturbed.
    expect(await session.execute(request('return kept'))).toMatchObject({ ok: true, value: '1' })
    await dispose()
    expect(session.alive).toBe(false)
  })

  test('the backend’s dispose() ends its open sessions and their runs', async () => {
    const backend = createIvmBackend()
    const idle = await backend.openSession!({ memoryMb: 32 })
    const busy = await backend.openSession!({ memoryMb: 32 })
    const running = busy.execute(request('await new Promise((resolve) => setTimeout(resolve, 3600000))'))
    await new Promise((resolve) => setTimeout(resolve, 30))
    await backend.dispose()
    expect(await running).toMatchObject({ ok: false, error: { code: 'ABORTED' } })
    expect([idle.alive, busy.alive]).toEqual([false, false])
    await expect(backend.openSession!({ memoryMb: 32 })).rejects.toMatchObject({ code: 'BACKEND_UNAVAILABLE' })
  })

  test('a run ending by itself keeps the session; one stopped from outside ends it', async () => {
    const { session, dispose } = await openRaw()
    for (const body of ['return 1', "throw new Error('boom')", 'return {', "return 'x'.repeat(2_000_000)"]) {
      await session.execute(request(body))
      expect(session.alive).toBe(true)
    }
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 30)
    expect(await session.execute(request('while (true) {}', { signal: controller.signal }))).toMatchObject({
      ok: false,
      error: { code: 'ABORTED' },
    })
    expect(session.alive).toBe(false)
    await dispose()
  })
})

describe('sessions through the sandbox', () => {
  test('cpuMs is each run’s own, heapBytes the session’s heap', async () => {
    const session = await sandbox.createSession()
    const busy = await session.run('let x = 0\nfor (let i = 0; i < 3e7; i++) x += i\nx')
    const idle = await session.run('1')
    expect(busy.stats.cpuMs).toBeGreaterThan(idle.stats.cpuMs! + 5)
    expect(idle.stats.cpuMs).toBeLessThan(20)
    await session.run('globalThis.big = new Array(1e6).fill(1.5)')
    const after = await session.run('big.length')
    expect(after.stats.heapBytes).toBeGreaterThan(idle.stats.heapBytes! + 4_000_000)
    const usage = await session.memoryUsage()
    expect(usage.heapBytes).toBeGreaterThan(4_000_000)
    await session.dispose()
  })

  test('a microtask flood left running after the value ends the session at the deadline, not later', async () => {
    const session = await sandbox.createSession()
    await session.run('const state = 1')
    const { value: result, ms } = await timed(() =>
      session.run('const loop = () => Promise.resolve().then(loop)\nloop()\n1', { timeoutMs: 300 }),
    )
    expect(codeOf(result)).toBe('TIMEOUT')
    expect(ms).toBeLessThan(800)
    expect(session.ended?.code).toBe('TIMEOUT')
    expect(valueOf(await sandbox.run('"still fine"'))).toBe('still fine')
  })

  test('bridge functions captured through traps set in one run are not reachable in the next ones', async () => {
    const echoed: unknown[] = []
    const tools: ToolSet = {
      'ns.echo': { execute: async (args: unknown) => (echoed.push(args), args) },
      'ns.now': { sync: true, execute: () => 7 },
    }
    const session = await sandbox.createSession({ tools })
    await session.run(`
globalThis.captured = []
const keep = (x) => { if (typeof x === 'function') captured.push(x) }
const call = Function.prototype.call, apply = Function.prototype.apply
Function.prototype.call = function (self, ...args) { keep(this); keep(self); return Reflect.apply(this, self, args) }
Function.prototype.apply = function (self, args) { keep(this); keep(self); return Reflect.apply(this, self, args || []) }
Object.defineProperty(Object.prototype, 'resolve', { set(v) { keep(v) }, configurable: true })
Error.prepareStackTrace = (e, sites) => { for (const s of sites) { try { keep(s.getFunction()); keep(s.getThis()) } catch (x) {} } return '' }
globalThis.restore = () => { Function.prototype.call = call; Function.prototype.apply = apply }`)
    const used = await session.run(
      "const r = [await ns.echo({ a: 1 }), ns.now()]\nconsole.log('mid')\nsetTimeout(() => {}, 0)\nnew Error('x').stack\nr",
    )
    expect(valueOf(used)).toEqual([{ a: 1 }, 7])
    const forged = await session.run(`
restore()
let tried = 0
for (const f of captured) {
  for (const args of [['ok', '"forged"', 0], ['log', 'forged'], [999, 'ns.echo', '"forged"'], [1, 0]]) {
    try { f(...args); tried++ } catch (e) {}
  }
}
tried > 0 ? 'done' : 'nothing captured'`)
    expect(valueOf(forged)).toBe('done')
    expect(JSON.stringify(echoed)).not.toContain('forged')
    expect(forged.logs.map((entry) => entry.message)).not.toContain('forged')
    // Calling a captured guest function (run 2's main) may echo { a: 1 } again: that is guest
    // code calling its own tool. A captured bridge callback would have sent "forged".
    expect(echoed.filter((args) => JSON.stringify(args) !== '{"a":1}')).toEqual([])
    await session.dispose()
  })

  test('tool calls and logs a run makes after its value never reach the next run', async () => {
    let probes = 0
    const session = await sandbox.createSession({ tools: { 't.probe': { execute: () => void probes++ } } })
    const late =
      "let p = Promise.resolve()\nfor (let i = 0; i < 200; i++) p = p.then(() => {})\np.then(() => { t.probe(); console.log('late') })\n1"
    for (let i = 0; i < 20; i++) {
      const first = await session.run(late)
      const next = await session.run('2')
      expect([valueOf(first), valueOf(next)]).toEqual([1, 2])
      expect(next.logs).toEqual([])
      expect(next.stats.toolCalls).toBe(0)
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(probes).toBe(0)
    await session.dispose()
  })

  test('a run that makes the runtime’s globals unchangeable ends the session at the next run, as a guest error', async () => {
    for (const code of ['Object.freeze(globalThis)', "Object.defineProperty(globalThis, 'console', { value: 1, configurable: false })"]) {
      const session = await sandbox.createSession()
      valueOf(await session.run(code))
      const next = await session.run('1')
      expect(codeOf(next)).toBe('RUNTIME_ERROR')
      expect(session.ended?.code).toBe('RUNTIME_ERROR')
    }
  })

  test('a session over its memoryMb ends with MEMORY_LIMIT; the sandbox and other sessions carry on', async () => {
    const other = await sandbox.createSession()
    await other.run('const mine = 7')
    const session = await sandbox.createSession({ memoryMb: 16 })
    const result = await session.run('globalThis.a = []\nfor (;;) a.push(new Array(1e4).fill(a.length))')
    expect(codeOf(result)).toBe('MEMORY_LIMIT')
    expect(session.ended?.code).toBe('MEMORY_LIMIT')
    expect(valueOf(await other.run('mine'))).toBe(7)
    await other.dispose()
  })
})
