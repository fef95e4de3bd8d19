/**
 * Sessions on this backend: one child per session. The conformance suite checks what a
 * session does; these check how this backend keeps it safe — a child that breaks the
 * protocol between or during runs ends the session, every run is checked like a one-off
 * run, guest code never runs between runs, and a session's child never outlives it.
 */
import fs from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Sandbox, Session } from '@cordon/core'
import { FORGE, descendants, errorOf, open, running, valueOf } from './helpers.js'

const linux = process.platform === 'linux'
let sandbox: Sandbox

beforeAll(async () => {
  ;({ sandbox } = await open({ poolSize: 2 }, { exposeProcess: true }))
})
afterAll(async () => {
  await sandbox.dispose()
})

async function expectSessionGone(session: Session): Promise<void> {
  // The violation kills the child as soon as the frame is read. Read together with `done`, it
  // ends the session right after that run; read later, the next run finds the child gone.
  if (session.ended !== undefined) {
    expect(session.ended.code).toBe('BACKEND_CRASHED')
    return
  }
  const result = await session.run('1')
  expect(errorOf(result).code).toBe('BACKEND_CRASHED')
  expect((session as { ended?: { code: string } }).ended?.code).toBe('BACKEND_CRASHED')
}

describe('a session child that breaks the protocol', () => {
  const between: [string, string][] = [
    ['a forged done', "send(['done', 'ok', '1', 0, 1, 1])"],
    ['a forged tool call', "send(['call', 99, 't.one', '1'])"],
    ['a forged log', "send(['log', 'log', 'between runs'])"],
    ['an unsolicited usage report', "send(['usage', 1])"],
    ['a second ready', "send(['ready'])"],
    ['bytes that are not a frame', "escapedProcess.stdout.write('hello, host')"],
  ]
  for (const [what, forge] of between) {
    it(`${what} between runs ends the session; the host calls nothing`, async () => {
      let calls = 0
      const session = await sandbox.createSession({ tools: { 't.one': { execute: () => calls++ } } })
      expect(valueOf(await session.run(`${FORGE}\nlater(() => { ${forge} }, 30)\nconst kept = 1\nkept`))).toBe(1)
      await new Promise((resolve) => setTimeout(resolve, 300))
      await expectSessionGone(session)
      expect(calls).toBe(0)
    })
  }

  it('a forged frame right behind a real done ends the session before its next run', async () => {
    const session = await sandbox.createSession()
    // The child's nextTick runs once the drain that sent the real `done` returns.
    const result = await session.run(`${FORGE}\nescapedProcess.nextTick(() => send(['done', 'ok', '2', 0, 1, 1]))\n1`)
    expect(valueOf(result)).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 100))
    await expectSessionGone(session)
  })

  it('every run is checked on its own: a tool the session never granted is a violation', async () => {
    let calls = 0
    const session = await sandbox.createSession({ tools: { 't.one': { execute: () => calls++ } } })
    expect(valueOf(await session.run('await t.one()'))).toBe(0)
    const result = await session.run(
      `${FORGE}\nsend(['call', 500, 'never.granted', '1'])\nawait new Promise((resolve) => setTimeout(resolve, 3600000))`,
      {
        timeoutMs: 5_000,
      },
    )
    expect(errorOf(result).code).toBe('BACKEND_CRASHED')
    expect(errorOf(result).message).toMatch(/unknown tool/)
    expect(session.ended?.code).toBe('BACKEND_CRASHED')
    expect(calls).toBe(1)
  })

  it('a tool granted to an earlier run is refused by the host, not run, and the session lives on', async () => {
    let calls = 0
    const session = await sandbox.createSession({ tools: { 't.one': { execute: () => calls++ }, 't.two': { execute: () => 2 } } })
    await session.run('globalThis.saved = t.one\n1')
    const refused = await session.run("let answer\ntry { answer = await saved() } catch (e) { answer = 'refused: ' + e.message }\nanswer", {
      tools: ['t.two'],
    })
    expect(valueOf(refused)).toMatch(/^refused: /)
    expect(calls).toBe(0)
    expect(valueOf(await session.run('await t.two()'))).toBe(2)
    await session.dispose()
  })

  it('message counts are per run: a flood in a later run is cut and ends the session', async () => {
    const session = await sandbox.createSession({ maxLogEntries: 3 })
    for (let i = 0; i < 3; i++) expect(valueOf(await session.run("console.log('a'); console.log('b'); console.log('c'); 1"))).toBe(1)
    const result = await session.run(
      `${FORGE}\nfor (let i = 0; i < 500; i++) send(['log', 'log', 'spam'])\nawait new Promise((resolve) => setTimeout(resolve, 3600000))`,
      {
        timeoutMs: 5_000,
      },
    )
    expect(errorOf(result).code).toBe('BACKEND_CRASHED')
    expect(result.logs.length).toBeLessThanOrEqual(3)
    expect(session.ended?.code).toBe('BACKEND_CRASHED')
  })
})

describe('session children', () => {
  it('memoryUsage() asks the child between runs and sees state kept across runs', async () => {
    const session = await sandbox.createSession()
    await session.run('1')
    const before = (await session.memoryUsage()).heapBytes
    await session.run('globalThis.keep = Array.from({ length: 500_000 }, (_, i) => i + 0.5)\n1')
    const after = (await session.memoryUsage()).heapBytes
    expect(before).toBeGreaterThan(0)
    expect(after - before).toBeGreaterThan(2_000_000)
    await session.dispose()
  })

  it('dispose() kills the child, ends a run in flight promptly, and is idempotent', async () => {
    const session = await sandbox.createSession()
    const pid = valueOf(await session.run('escapedProcess.pid')) as number
    const busy = session.run('for (;;) {}', { timeoutMs: 30_000 })
    await new Promise((resolve) => setTimeout(resolve, 100))
    const started = Date.now()
    await Promise.all([session.dispose(), session.dispose()])
    expect(errorOf(await busy).code).toBe('ABORTED')
    expect(Date.now() - started).toBeLessThan(2_000)
    // Inside a PID namespace the child sees itself as pid 1; outside one, its pid is real.
    if (linux && pid !== 1) expect(running(pid)).toBe(false)
  })

  it.runIf(linux)('guest code never runs between runs: FinalizationRegistry cleanups wait for the next run', async () => {
    const { sandbox: own } = await open({ poolSize: 0 }, { exposeProcess: true })
    try {
      const session = await own.createSession()
      // Each cleanup spins for 300 ms. A forced GC between runs would make V8 call them then.
      const setup = `globalThis.cleaned = 0
globalThis.registry = new FinalizationRegistry(() => { cleaned++; const end = Date.now() + 300; while (Date.now() < end) {} })
for (let i = 0; i < 5; i++) registry.register({ i }, i)
const v8 = escapedProcess.getBuiltinModule('v8')
v8.setFlagsFromString('--expose_gc')
const gc = escapedProcess.getBuiltinModule('vm').runInNewContext('gc')
escapedProcess.getBuiltinModule('timers').setTimeout(() => gc(), 50)
1`
      valueOf(await session.run(setup))
      const below = descendants(process.pid)
      const cpu = () => below.reduce((sum, pid) => sum + cpuTicks(pid), 0)
      await new Promise((resolve) => setTimeout(resolve, 150))
      const idleStart = cpu()
      await new Promise((resolve) => setTimeout(resolve, 1_200))
      const idleTicks = cpu() - idleStart
      expect(idleTicks).toBeLessThan(30) // 0.3 s of CPU; five cleanups run between runs would take 1.2 s or more
      // They were queued, not lost: the next run's first drain runs them, under its deadline.
      expect(valueOf(await session.run('cleaned', { timeoutMs: 5_000 }))).toBe(5)
    } finally {
      await own.dispose()
    }
  })
})

/** User + system CPU time of a process in clock ticks (usually 10 ms), 0 once it is gone. */
function cpuTicks(pid: number): number {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1')
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return 0
  }
}
