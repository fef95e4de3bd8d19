/**
 * The QuickJS backend in real headless Chromium: bundled for the browser, engines in Web Workers,
 * with and without cross-origin isolation. A spinning guest never holds the page's thread (the
 * page's own timer keeps ticking), and a run still ends at its deadline or on abort.
 * Quiet lane: it measures the page's responsiveness.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import type { createSandbox } from '@cordon/core'
import type { createQuickJSBackend } from '@cordon/backend-quickjs'
import { bundleTestPage, launchChromium, removeDir, servePage, type PageServer } from './helpers/browser-page.js'

/** What the test page puts on globalThis (page/page-entry.ts). */
interface PageCordon {
  createSandbox: typeof createSandbox
  createQuickJSBackend: typeof createQuickJSBackend
}
declare const cordon: PageCordon

let dir: string
let browser: Browser

beforeAll(async () => {
  dir = await bundleTestPage()
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  if (dir !== undefined) removeDir(dir)
})

for (const isolated of [false, true]) {
  describe(isolated ? 'a cross-origin isolated page (SharedArrayBuffer)' : 'a page without cross-origin isolation', () => {
    let server: PageServer
    let page: Page

    beforeAll(async () => {
      server = await servePage(dir, { isolated })
      page = await browser.newPage()
      const errors: string[] = []
      page.on('pageerror', (error) => errors.push(error.message))
      await page.goto(server.url)
      await page.waitForFunction(() => 'cordon' in globalThis, undefined, { timeout: 30_000 })
      expect(errors).toEqual([])
      expect(await page.evaluate(() => globalThis.crossOriginIsolated)).toBe(isolated)
      // One sandbox for the page, as an app keeps one.
      await page.evaluate(() => {
        Object.assign(globalThis, { sandbox: cordon.createSandbox(cordon.createQuickJSBackend()) })
      })
    }, 60_000)

    afterAll(async () => {
      await page?.evaluate(() => (globalThis as unknown as { sandbox: { dispose(): Promise<void> } }).sandbox.dispose())
      await page?.close()
      await server?.close()
    })

    it('runs a program with an async tool and its logs, in a Web Worker', async () => {
      const result = await page.evaluate(async () => {
        const { sandbox } = globalThis as unknown as { sandbox: ReturnType<typeof cordon.createSandbox> }
        return sandbox.run('const user = await db.user({ id: 7 })\nconsole.log("found", user.name)\nuser.name.toUpperCase()', {
          tools: { 'db.user': { execute: ({ id }: { id: number }) => ({ id, name: `user-${id}` }) } },
        })
      })
      expect(result).toMatchObject({ ok: true, value: 'USER-7', logs: [{ level: 'log', message: 'found user-7' }] })
      // The engines run off the page's thread: the page itself has no QuickJS.
      const workers = await page.evaluate(() =>
        performance.getEntriesByType('resource').some((entry) => entry.name.endsWith('/web-worker.js')),
      )
      expect(workers).toBe(true)
    })

    it("validates a tool's input against its inputSchema, as on a server", async () => {
      const value = await page.evaluate(async () => {
        const { sandbox } = globalThis as unknown as { sandbox: ReturnType<typeof cordon.createSandbox> }
        const r = await sandbox.run(
          "let refused\ntry { await tags.add([{ t: 'a' }, { t: 'a' }]) } catch (e) { refused = e.message }\n[await tags.add([{ t: 'a' }, { t: 'b' }]), refused]",
          {
            tools: {
              'tags.add': {
                inputSchema: { type: 'array', items: { type: 'object' }, uniqueItems: true },
                execute: (t: object[]) => t.length,
              },
            },
          },
        )
        return r.ok ? r.value : r.error
      })
      // No parse thread in a page: the schema is compiled on the page's thread, Ajv's helpers (here
      // deep equality) bundled with the page.
      expect(value).toEqual([2, 'Invalid arguments for tool tags.add: args must NOT have duplicate items (items ## 0 and 1 are identical)'])
    })

    it('TypeScript, typed errors and the value model are the same as on a server', async () => {
      const results = await page.evaluate(async () => {
        const { sandbox } = globalThis as unknown as { sandbox: ReturnType<typeof cordon.createSandbox> }
        return Promise.all([
          sandbox.run('const n: number = 2\nnew Map([[n, { at: new Date(0) }]])'),
          sandbox.run('let x = ;'),
          sandbox.run('null.x'),
        ])
      })
      expect(results[0]).toMatchObject({ ok: true })
      expect(results[1]).toMatchObject({ ok: false, error: { code: 'SYNTAX_ERROR' } })
      expect(results[2]).toMatchObject({ ok: false, error: { code: 'RUNTIME_ERROR', name: 'TypeError' } })
    })

    it(
      isolated
        ? 'synchronous tools answer through shared memory; the guarded fetch is refused, saying so'
        : 'synchronous tools are UNSUPPORTED without shared memory; the guarded fetch is refused, saying so',
      async () => {
        const results = await page.evaluate(async () => {
          const { sandbox } = globalThis as unknown as { sandbox: ReturnType<typeof cordon.createSandbox> }
          let calls = 0
          const clock = { 'clock.tick': { sync: true, execute: ({ by }: { by: number }) => (calls += by) } }
          return Promise.all([
            // Synchronous: no await; the answers are in order, and a large one crosses too.
            sandbox.run('const a = clock.tick({ by: 1 })\nconst b = clock.tick({ by: 2 })\nconst both = [a, b]\nboth', { tools: clock }),
            sandbox.run('big.text().length', { tools: { 'big.text': { sync: true, execute: () => 'x'.repeat(200_000) } } }),
            sandbox.run('try { await fetch("https://example.com/") } catch (error) { String(error.message) }', {
              fetch: { allow: ['https://example.com'] },
            }),
          ])
        })
        if (isolated) {
          expect(results[0]).toMatchObject({ ok: true, value: [1, 3] })
          expect(results[1]).toMatchObject({ ok: true, value: 200_000 })
          // A call whose tool stops its own run is answered after the stop: that answer must not
          // become the next run's.
          const [stopped, next] = await page.evaluate(async () => {
            const { sandbox } = globalThis as unknown as { sandbox: ReturnType<typeof cordon.createSandbox> }
            const controller = new AbortController()
            const stopping = { 'run.stop': { sync: true, execute: () => (controller.abort(), 'stale') } }
            const first = await sandbox.run('run.stop()\n"not reached"', { tools: stopping, signal: controller.signal })
            const second = await sandbox.run('fresh.value()', { tools: { 'fresh.value': { sync: true, execute: () => 'fresh' } } })
            return [first, second]
          })
          expect(stopped).toMatchObject({ ok: false, error: { code: 'ABORTED' } })
          expect(next).toMatchObject({ ok: true, value: 'fresh' })
        } else {
          // Refused before any guest code runs: without isolation the backend declares syncHostCalls false.
          expect(results[0]).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', message: expect.stringMatching(/syncHostCalls/) } })
        }
        expect(results[2]).toMatchObject({ ok: true, value: expect.stringMatching(/fetch is not available in a browser/) })
      },
    )

    it('a spinning guest ends TIMEOUT at its deadline while the page keeps running, and the next run works', async () => {
      const timeoutMs = 1_500
      const measured = await page.evaluate(async (timeoutMs) => {
        const { sandbox } = globalThis as unknown as { sandbox: ReturnType<typeof cordon.createSandbox> }
        let last = performance.now()
        let longestGap = 0
        let ticks = 0
        const timer = setInterval(() => {
          const now = performance.now()
          longestGap = Math.max(longestGap, now - last)
          last = now
          ticks += 1
        }, 10)
        const started = performance.now()
        const result = await sandbox.run('while (true) {}', { timeoutMs })
        const elapsed = performance.now() - started
        clearInterval(timer)
        const next = await sandbox.run('6 * 7')
        return { result, elapsed, longestGap, ticks, next }
      }, timeoutMs)
      expect(measured.result).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } })
      expect(measured.elapsed).toBeGreaterThanOrEqual(timeoutMs - 50)
      expect(measured.elapsed).toBeLessThan(timeoutMs + 5_000)
      // Had the guest run on the page's thread, the page's timer would have stopped for the whole deadline.
      expect(measured.longestGap).toBeLessThan(timeoutMs / 2)
      expect(measured.ticks).toBeGreaterThan(10)
      expect(measured.next).toMatchObject({ ok: true, value: 42 })
    })

    it('an abort ends a spinning guest ABORTED long before its deadline', async () => {
      const measured = await page.evaluate(async () => {
        const { sandbox } = globalThis as unknown as { sandbox: ReturnType<typeof cordon.createSandbox> }
        const controller = new AbortController()
        const started = performance.now()
        setTimeout(() => controller.abort(), 300)
        const result = await sandbox.run('for (;;) {}', { timeoutMs: 30_000, signal: controller.signal })
        return { result, elapsed: performance.now() - started, next: await sandbox.run('1 + 1') }
      })
      expect(measured.result).toMatchObject({ ok: false, error: { code: 'ABORTED' } })
      expect(measured.elapsed).toBeLessThan(15_000)
      expect(measured.next).toMatchObject({ ok: true, value: 2 })
    })

    it('a guest that allocates without end ends MEMORY_LIMIT', async () => {
      const result = await page.evaluate(async () => {
        const { sandbox } = globalThis as unknown as { sandbox: ReturnType<typeof cordon.createSandbox> }
        return sandbox.run('const keep = []\nfor (;;) keep.push(new Array(10000).fill(1))', { memoryMb: 32, timeoutMs: 20_000 })
      })
      expect(result).toMatchObject({ ok: false, error: { code: 'MEMORY_LIMIT' } })
    })
  })
}
