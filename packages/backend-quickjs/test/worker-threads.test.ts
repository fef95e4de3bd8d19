import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import * as threads from 'node:worker_threads'
import { createSandbox } from '@cordon/core'
import { ChannelPool, type FarSideLink, type SandboxBackend } from '@cordon/core/backend'
import { afterEach, describe, expect, test } from 'vitest'
import { QUICKJS_CAPABILITIES, createQuickJSBackend } from '../src/index.js'
import type { EngineImage } from '../src/engine-image.js'
import { startWorker } from '../src/worker-thread.js'
import { resolveOptions } from '../src/options.js'
import { loadWasiBuildAndImage } from '../src/wasi/wasi-maker.js'
import type { WorkerData } from '../src/worker/worker-data.js'

const entry = new URL('../dist/engine-worker.js', import.meta.url)
const settings = {
  engine: 'quickjs-emscripten' as const,
  variant: undefined,
  wasmModule: undefined,
  poolSize: 1,
  maxStackSizeBytes: 256 * 1024,
  engineImage: true,
  reportDisposeErrors: false,
}

/**
 * The worker-mode backend built from its parts, keeping each worker's link so a test can end one
 * from outside, and the engine images workers reported (the first is handed to later workers).
 */
function backendWithLinks(engine: WorkerData['settings']['engine'] = 'quickjs-emscripten'): {
  backend: SandboxBackend
  links: FarSideLink[]
  images: EngineImage[]
  shared: WorkerData['settings']
} {
  const links: FarSideLink[] = []
  const images: EngineImage[] = []
  const shared: WorkerData['settings'] = { ...settings, engine }
  // As the backend does: quickjs-wasi's module and image load while the first worker starts.
  const wasiComing = engine === 'quickjs-wasi' ? loadWasiBuildAndImage(resolveOptions({ engine })) : undefined
  shared.wasiComing = wasiComing !== undefined
  void wasiComing?.then((loaded) => {
    shared.wasiFromHost = loaded
    shared.wasiComing = false
  })
  const pool = new ChannelPool({
    label: 'QuickJS worker',
    start(events) {
      const link = startWorker(threads, {
        entry,
        settings: shared,
        events,
        onImage: (image) => {
          images.push(image)
          shared.image ??= image
        },
        wasiComing: wasiComing === undefined ? undefined : () => wasiComing,
      })
      links.push(link)
      return link
    },
    maxSides: 2,
    minSides: 1,
    idleMs: 5_000,
    maxChars: 2 ** 30,
    stopGraceMs: 60,
    killGraceMs: 1_000,
  })
  const backend: SandboxBackend = {
    specificationVersion: 'v1',
    name: 'quickjs',
    capabilities: QUICKJS_CAPABILITIES,
    execute: (request) => pool.execute(request),
    openSession: (request) => pool.openSession(request.memoryMb),
    dispose: () => Promise.resolve(pool.dispose({ code: 'ABORTED', message: 'disposed' })),
  }
  return { backend, links, images, shared }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const disposables: { dispose(): Promise<void> }[] = []
afterEach(async () => {
  for (const item of disposables.splice(0)) await item.dispose()
})

describe('a worker that dies', () => {
  test('ended from outside mid-run: that run ends BACKEND_CRASHED at once, the next run gets a new worker', async () => {
    const { backend, links } = backendWithLinks()
    const sandbox = createSandbox(backend)
    disposables.push(sandbox)
    expect(await sandbox.run('1 + 1')).toMatchObject({ ok: true, value: 2 })
    const running = sandbox.run("console.log('spinning')\nfor (;;) {}", { timeoutMs: 20_000 })
    await new Promise((resolve) => setTimeout(resolve, 200))
    const killedAt = performance.now()
    links[0]?.kill()
    const result = await running
    expect(result).toMatchObject({ ok: false, error: { code: 'BACKEND_CRASHED' } })
    expect(performance.now() - killedAt).toBeLessThan(1_000)
    expect(await sandbox.run('2 + 2')).toMatchObject({ ok: true, value: 4 })
    expect(links).toHaveLength(2)
  })

  test('a session on a worker that dies is gone; sessions on other workers are not', async () => {
    const { backend, links } = backendWithLinks()
    const sandbox = createSandbox(backend)
    disposables.push(sandbox)
    const first = await sandbox.createSession()
    expect(await first.run('globalThis.n = 1; n')).toMatchObject({ ok: true, value: 1 })
    // A spinning run keeps the first worker busy, so the second session opens on a new worker.
    const spinning = sandbox.run('for (;;) {}', { timeoutMs: 3_000 })
    await new Promise((resolve) => setTimeout(resolve, 100))
    const second = await sandbox.createSession()
    expect(await second.run('globalThis.n = 2; n')).toMatchObject({ ok: true, value: 2 })
    expect(links).toHaveLength(2)
    links[0]?.kill()
    expect(await spinning).toMatchObject({ ok: false, error: { code: 'BACKEND_CRASHED' } })
    expect((await first.run('n')).ok).toBe(false)
    expect(await second.run('n + 1')).toMatchObject({ ok: true, value: 3 })
  })
})

describe('the engine image', () => {
  test('the first worker takes it and the pool hands it to a worker started later, which takes none of its own', async () => {
    const { backend, links, images } = backendWithLinks()
    const sandbox = createSandbox(backend)
    disposables.push(sandbox)
    const started = performance.now()
    expect(await sandbox.run('1 + 1')).toMatchObject({ ok: true, value: 2 })
    while (images.length === 0 && performance.now() - started < 20_000) await sleep(20)
    expect(images).toHaveLength(1)
    const firstTookMs = performance.now() - started
    // A spinning run keeps the first worker busy, so the next runs go to a second worker.
    const spinning = sandbox.run('for (;;) {}', { timeoutMs: 60_000 })
    await sleep(100)
    const randoms = new Set<unknown>()
    for (let i = 0; i < 5; i++) {
      const result = await sandbox.run('Math.random()')
      expect(result.ok).toBe(true)
      if (result.ok) randoms.add(result.value)
    }
    expect(links).toHaveLength(2)
    // Its engines start from the shared image (each with a Math.random of its own); a worker that
    // took its own image would have reported it in about the time the first one took.
    expect(randoms.size).toBe(5)
    await sleep(Math.max(1_500, 3 * firstTookMs))
    expect(images).toHaveLength(1)
    links[0]?.kill()
    await spinning
  })
})

describe('quickjs-wasi workers', () => {
  test('the host loads the module and the engine image once: the first worker gets them as a message, later ones in their data', async () => {
    const { backend, links, shared } = backendWithLinks('quickjs-wasi')
    const sandbox = createSandbox(backend)
    disposables.push(sandbox)
    expect(shared.wasiComing).toBe(true)
    expect(await sandbox.run('1 + 1')).toMatchObject({ ok: true, value: 2 })
    expect(shared.wasiComing).toBe(false)
    // Run from the sources, the shipped image is not for this guest runtime (wasi-engine.test.ts
    // checks a built process uses it): the workers take their own, and say why.
    const loaded = shared.wasiFromHost as { module: WebAssembly.Module; imageNote: string }
    expect(loaded.module).toBeInstanceOf(WebAssembly.Module)
    expect(loaded.imageNote).toBe('made for another guest runtime')
    // A spinning run keeps the first worker busy, so the next runs go to a second worker.
    const spinning = sandbox.run('for (;;) {}', { timeoutMs: 60_000 })
    await sleep(100)
    const randoms = new Set<unknown>()
    for (let i = 0; i < 5; i++) {
      const result = await sandbox.run('[Math.random(), performance.now() < 60_000]')
      expect(result).toMatchObject({ ok: true, value: [expect.any(Number), true] })
      if (result.ok) randoms.add((result.value as number[])[0])
    }
    expect(links).toHaveLength(2)
    expect(randoms.size).toBe(5)
    links[0]?.kill()
    await spinning
  })
})

describe("console entries of a guest that goes on computing (the worker's interrupt checks pull them)", () => {
  const program = "for (let i = 0; i < 40; i++) console.log('entry', i)\nfor (;;) {}"
  const entries = Array.from({ length: 40 }, (_, i) => 'entry ' + i)

  test('reach onEvent while the guest still spins', async () => {
    const sandbox = createSandbox(createQuickJSBackend())
    disposables.push(sandbox)
    const controller = new AbortController()
    const streamed: string[] = []
    const result = await sandbox.run(program, {
      timeoutMs: 5_000,
      signal: controller.signal,
      onEvent(event) {
        if (event.type !== 'log') return
        streamed.push(event.message)
        // Only entries that left the worker during the spin can end the run before its deadline.
        if (streamed.length === entries.length) controller.abort()
      },
    })
    expect(result).toMatchObject({ ok: false, error: { code: 'ABORTED' } })
    expect(streamed).toEqual(entries)
    expect(result.logs.map((entry) => entry.message)).toEqual(entries)
  })

  test('are kept when the worker is killed mid-spin and never reports again', async () => {
    const { backend, links } = backendWithLinks()
    const sandbox = createSandbox(backend)
    disposables.push(sandbox)
    let streamed = 0
    let allStreamed = () => {}
    const streamedAll = new Promise<void>((resolve) => (allStreamed = resolve))
    const running = sandbox.run(program, {
      timeoutMs: 20_000,
      onEvent(event) {
        if (event.type === 'log' && ++streamed === entries.length) allStreamed()
      },
    })
    // Killed only once the interrupt checks pulled every entry out of the spinning worker (a fixed
    // wait raced a cold worker on a loaded machine): what reached the host must stay in the result.
    await Promise.race([streamedAll, running])
    links[0]?.kill()
    const result = await running
    expect(result).toMatchObject({ ok: false, error: { code: 'BACKEND_CRASHED' } })
    expect(result.logs.map((entry) => entry.message)).toEqual(entries)
  })
})

test('idle workers never keep the host process alive, and host flags such as --input-type do not reach them', () => {
  // TypeScript and a 40 KB program are parsed on core's parse thread: idle, it must not keep the
  // process alive either, and while it works the process must wait for it.
  const program = [
    "import { createSandbox } from '@cordon/core'",
    "import { createQuickJSBackend } from '@cordon/backend-quickjs'",
    'const sandbox = createSandbox(createQuickJSBackend())',
    "const r = await sandbox.run('6 * 7')",
    "const typed = await sandbox.run('const n: number = 6\\nn * 7')",
    "const large = await sandbox.run('let n = 0\\n' + 'n += 7\\n'.repeat(6_000) + 'n / 1000')",
    'console.log(JSON.stringify([r.value, typed.value, large.value]))',
    '// no dispose: the process must still exit on its own',
  ].join('\n')
  const started = performance.now()
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', program], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    encoding: 'utf8',
    timeout: 20_000,
  })
  expect(child.stderr).toBe('')
  expect(child.stdout.trim()).toBe('[42,42,42]')
  expect(child.status).toBe(0)
  expect(performance.now() - started).toBeLessThan(15_000)
})

test('after dispose, the backend starts no new worker: a session is refused DISPOSED', async () => {
  const backend = createQuickJSBackend()
  const sandbox = createSandbox(backend)
  expect(await sandbox.run('1')).toMatchObject({ ok: true })
  await backend.dispose()
  const opened = await backend.openSession!({ memoryMb: 32 }).then(
    () => 'opened',
    (error: unknown) => (error as { code?: string }).code,
  )
  expect(opened).toBe('DISPOSED')
})
