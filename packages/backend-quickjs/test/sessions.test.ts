import { isSandboxError } from '@cordon/core'
import type { BackendSession } from '@cordon/core/backend'
import { afterAll, beforeEach, describe, expect, test } from 'vitest'
import { createQuickJSBackend } from '../src/index.js'
import { debugBuildBackend } from './helpers/debug-build.js'
import { codeOf, executeDirect, valueOf } from './helpers/execute.js'

const MB = 1024 * 1024

/**
 * Sessions driven without @cordon/core, on QuickJS's debug build: it asserts when an engine is
 * freed with an object still alive, and the backend reports that through `onDisposeError`. So
 * every test here also proves that a session's engine is freed cleanly, whichever way it ended.
 */
const { backend, disposeErrors } = debugBuildBackend()
afterAll(() => backend.dispose())
beforeEach(() => {
  disposeErrors.length = 0
})

/** The debug build itself needs more than 64 MB. */
function openSession(memoryMb = 128): Promise<BackendSession> {
  return backend.openSession!({ memoryMb })
}

describe('a session keeps its engine between runs that end by themselves', () => {
  test('globals persist through values, logs, tools, errors and leftovers; dispose frees every handle', async () => {
    const session = await openSession()
    const tools = { 't.echo': (args: unknown) => args }
    const syncTools = { 't.now': () => 42 }
    expect(valueOf(await executeDirect(session, 'globalThis.n = 1\nreturn n'))).toBe(1)
    const logged = await executeDirect(session, "console.log('n is', n)\nreturn [++n, await t.echo(n), t.now()]", { tools, syncTools })
    expect(valueOf(logged)).toEqual([2, 2, 42])
    expect(logged.logs).toEqual(['log: n is 1'])
    expect(codeOf(await executeDirect(session, "n++\nthrow new TypeError('bad')"))).toBe('RUNTIME_ERROR')
    expect(codeOf(await executeDirect(session, 'let = = 1'))).toBe('SYNTAX_ERROR')
    const leftovers = "setInterval(() => {}, 1)\nnew Promise(() => {})\nPromise.reject(new Error('unhandled'))\nreturn n"
    expect(valueOf(await executeDirect(session, leftovers))).toBe(3)
    expect(valueOf(await executeDirect(session, 'return n'))).toBe(3)
    expect(session.alive).toBe(true)
    await session.dispose()
    await session.dispose()
    expect(session.alive).toBe(false)
    expect(codeOf(await executeDirect(session, 'return 1'))).toBe('BACKEND_CRASHED')
    expect(disposeErrors.map(String)).toEqual([])
  })

  test('promise jobs left queued after a result run before the next run, and reach no host', async () => {
    const session = await openSession()
    // More jobs than one batch of executePendingJobs, so some are still queued when the run ends.
    const first =
      "(async () => {\n  for (let i = 0; i < 600; i++) await null\n  globalThis.late = 'ran'\n  console.log('late')\n})()\nreturn 1"
    expect(valueOf(await executeDirect(session, first))).toBe(1)
    const second = await executeDirect(session, 'return globalThis.late')
    expect(valueOf(second)).toBe('ran')
    expect(second.logs).toEqual([])
    await session.dispose()
    expect(disposeErrors.map(String)).toEqual([])
  })
})

describe('a run stopped from outside ends the session and frees its engine', () => {
  test('the deadline', async () => {
    const session = await openSession()
    expect(valueOf(await executeDirect(session, 'globalThis.kept = 1\nreturn kept'))).toBe(1)
    expect(codeOf(await executeDirect(session, 'for (;;) {}', { timeoutMs: 300 }))).toBe('TIMEOUT')
    expect(session.alive).toBe(false)
    expect(disposeErrors.map(String)).toEqual([])
  })
})

describe('dispose() while a run is in flight', () => {
  test('ends a run waiting on a timer promptly with ABORTED', async () => {
    const session = await openSession()
    const running = executeDirect(session, 'await new Promise((resolve) => setTimeout(resolve, 60000))', { timeoutMs: 20_000 })
    await new Promise((resolve) => setTimeout(resolve, 50))
    const disposedAt = performance.now()
    await session.dispose()
    const run = await running
    expect(codeOf(run)).toBe('ABORTED')
    expect(performance.now() - disposedAt).toBeLessThan(2_000)
    expect(session.alive).toBe(false)
    expect(disposeErrors.map(String)).toEqual([])
  })

  test('called from inside a sync tool, stops the guest without freeing the engine under it', async () => {
    const session = await openSession()
    let disposedAt = Number.NaN
    const syncTools = {
      't.close': () => {
        disposedAt = performance.now()
        void session.dispose()
      },
    }
    const run = await executeDirect(session, 't.close()\nfor (;;) {}', { syncTools, timeoutMs: 20_000 })
    expect(codeOf(run)).toBe('ABORTED')
    expect(performance.now() - disposedAt).toBeLessThan(2_000)
    expect(session.alive).toBe(false)
    expect(disposeErrors.map(String)).toEqual([])
  })
})

test('openSession() rejects MEMORY_LIMIT when memoryMb cannot hold the engine itself', async () => {
  const opened = openSession(8).then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(isSandboxError(await opened, 'MEMORY_LIMIT')).toBe(true)
})

test("backend.dispose() disposes the backend's open sessions", async () => {
  const own = createQuickJSBackend()
  const session = await own.openSession!({ memoryMb: 64 })
  expect(valueOf(await executeDirect(session, 'return 1'))).toBe(1)
  await own.dispose()
  expect(session.alive).toBe(false)
})

describe('release build (quicker under load; the debug build starts with about 100 MB of heap)', () => {
  const release = createQuickJSBackend()
  afterAll(() => release.dispose())

  test('guest code still running after its result is stopped at the deadline; the session is not kept', async () => {
    const session = await release.openSession!({ memoryMb: 64 })
    const body = '(async () => {\n  await null\n  await null\n  await null\n  for (;;) {}\n})()\nreturn 1'
    const run = await executeDirect(session, body, { timeoutMs: 1_000 })
    // The result came first, so it stands; the loop after it ran until the deadline stopped it.
    expect(codeOf(run)).toBe('ok')
    expect(run.elapsedMs).toBeLessThan(10_000)
    expect(session.alive).toBe(false)
  })

  test('memoryUsage() counts what the session keeps (a high-water mark above the ~11 MB an engine starts with)', async () => {
    const session = await release.openSession!({ memoryMb: 64 })
    expect(valueOf(await executeDirect(session, 'return 1'))).toBe(1)
    const before = await session.memoryUsage()
    expect(before).toBeLessThan(16 * MB)
    expect(valueOf(await executeDirect(session, 'globalThis.keep = new Uint8Array(24 * 1024 * 1024).fill(1)\nreturn keep.length'))).toBe(
      24 * MB,
    )
    expect(await session.memoryUsage()).toBeGreaterThanOrEqual(24 * MB)
    await session.dispose()
  })

  test('the cap is the whole session, state kept from earlier runs included; running out ends it', async () => {
    const session = await release.openSession!({ memoryMb: 32 })
    const keep = 'globalThis.keep ??= []\nkeep.push(new Uint8Array(6 * 1024 * 1024).fill(1))\nreturn keep.length'
    const codes: string[] = []
    for (let run = 0; run < 8 && session.alive; run++) codes.push(codeOf(await executeDirect(session, keep, { memoryMb: 32 })))
    expect(codes.slice(0, 2)).toEqual(['ok', 'ok'])
    expect(codes.at(-1)).toBe('MEMORY_LIMIT')
    expect(session.alive).toBe(false)
  })
})
