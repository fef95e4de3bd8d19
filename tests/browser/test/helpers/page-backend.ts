/**
 * The page's QuickJS backend (engines in the page's Web Workers) as a SandboxBackend in Node, so
 * that @cordon/conformance runs against it unchanged: the channel protocol of
 * @cordon/core/backend, carried by playwright (batches as JSON text, as backend-remote sends them
 * over a socket). Tools, limits and events are core's in Node; engines, their workers and their
 * stops are the page's. One page per far side; killing it closes the page.
 */
import { ChannelPool, type FarSideEvents, type FarSideLink, type SandboxBackend } from '@cordon/core/backend'
import type { Browser, Page } from 'playwright-core'
import { WEB_WORKER_CAPABILITIES } from '@cordon/backend-quickjs'

interface PageGlobals {
  cordon: { serve(): (text: string) => void }
  cordonFromNode?: (text: string) => void
}

export function createPageBackend(browser: () => Promise<Browser>, url: () => Promise<string>): SandboxBackend {
  const closing = new Set<Promise<void>>()
  const pool = new ChannelPool({
    label: 'Chromium page',
    start: (events) => startPage(browser, url, events, closing),
    maxSides: 1,
    minSides: 1,
    idleMs: 60_000,
    maxChars: 2 ** 28,
    // The page's own pool ends a stopped run 60 ms after the stop; this only covers the hop.
    stopGraceMs: 500,
    killGraceMs: 5_000,
  })
  return {
    specificationVersion: 'v1',
    name: 'quickjs-in-chromium',
    // No synchronous tools through the hop: Node cannot answer the page while the page waits.
    capabilities: WEB_WORKER_CAPABILITIES,
    execute: (request) => pool.execute(request),
    openSession: (request) => pool.openSession(request.memoryMb),
    async dispose() {
      pool.dispose({ code: 'ABORTED', message: 'the backend was disposed' })
      // The browser may be closed next: no page of ours may still be setting up then.
      await Promise.all(closing)
    },
  }
}

function startPage(
  browser: () => Promise<Browser>,
  url: () => Promise<string>,
  events: FarSideEvents,
  closing: Set<Promise<void>>,
): FarSideLink {
  let page: Page | undefined
  let lost = false
  let markGone = () => {}
  const gone = new Promise<void>((resolve) => (markGone = resolve))
  const lose = (message: string) => {
    if (lost) return
    lost = true
    // Closed only once its setup settled (or the page is gone anyway): playwright throws outside
    // any promise when a page closes while the object exposeFunction creates is on its way back.
    const settled = Promise.race([ready.catch(() => undefined), gone])
      .then(() => page?.close())
      .catch(() => undefined)
    closing.add(settled)
    void settled.then(() => closing.delete(settled))
    events.lost({ code: 'BACKEND_CRASHED', message })
  }
  const ready: Promise<Page> = (async () => {
    page = await (await browser()).newPage()
    page.on('crash', () => lose('the page crashed'))
    page.on('close', () => {
      markGone()
      lose('the page was closed')
    })
    if (lost) return page
    await page.exposeFunction('cordonToNode', (text: string) => {
      if (!lost) events.receive(JSON.parse(text))
    })
    if (lost) return page
    await page.goto(await url())
    await page.waitForFunction(() => 'cordon' in globalThis)
    await page.evaluate(() => {
      const scope = globalThis as unknown as PageGlobals
      scope.cordonFromNode = scope.cordon.serve()
    })
    return page
  })()
  // Batches keep their order: each waits for the one before it to be handed to the page.
  let chain: Promise<unknown> = ready.catch((error: unknown) => lose(`the page did not start: ${String(error)}`))
  return {
    transport: {
      send(batch) {
        const text = JSON.stringify(batch)
        chain = chain.then(async () => {
          if (lost || page === undefined) return
          await page
            .evaluate((text) => (globalThis as unknown as PageGlobals).cordonFromNode?.(text), text)
            .catch((error: unknown) => lose(`the page refused a batch: ${String(error)}`))
        })
      },
    },
    kill: () => lose('the page was closed by its pool'),
    hold: () => undefined,
  }
}
