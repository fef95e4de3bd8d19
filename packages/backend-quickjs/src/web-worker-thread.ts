import type { RunError } from '@cordon/core'
import { createStopFlags, wakeSyncWaiter, type FarSideLink } from '@cordon/core/backend'
import { createReplyLine, writeReply } from './shared-reply-line.js'
import { isEngineImage } from './engine-image.js'
import { runsOnNode } from './host-platform.js'
import { IMAGE_REPORT, WASI_FROM_HOST, type WorkerStart } from './worker/worker-data.js'
import { WEB_WORKER_START, type WebWorkerStart } from './worker/web-worker-data.js'

/** The part of a browser's Worker this uses. */
interface WebWorker {
  postMessage(message: unknown): void
  terminate(): void
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void
  addEventListener(type: 'error' | 'messageerror', listener: (event: { message?: string; preventDefault(): void }) => void): void
}
type WebWorkerConstructor = new (url: URL, options: { type: 'module'; name: string }) => WebWorker

/**
 * A page's (or a worker's) Worker constructor; undefined on Node, Bun and Deno (Deno has Web
 * Workers too, but runs engines in worker threads) and wherever there is none.
 */
export function pageWorkerConstructor(): WebWorkerConstructor | undefined {
  const candidate = (globalThis as { Worker?: unknown }).Worker
  return !runsOnNode() && typeof candidate === 'function' ? (candidate as WebWorkerConstructor) : undefined
}

/**
 * Starts one QuickJS engine in a Web Worker (a module worker running web-worker.js) and links it
 * to the pool. Where the page is cross-origin isolated the worker shares the stop flags, so a stop
 * reaches a spinning guest at once, and a reply line for synchronous tools; elsewhere a stopped
 * run ends on time anyway and the worker, still spinning, is terminated a moment later (the pool's
 * kill grace) and replaced.
 */
export function startWebWorker(Worker: WebWorkerConstructor, { entry, settings, events, onImage, wasiComing }: WorkerStart): FarSideLink {
  const flags = createStopFlags()
  const replies = flags === undefined ? undefined : createReplyLine()
  const worker = new Worker(entry, { type: 'module', name: 'cordon-quickjs' })
  let gone = false
  const lose = (error: RunError) => {
    if (gone) return
    gone = true
    worker.terminate()
    events.lost(error)
  }
  worker.addEventListener('message', ({ data }) => {
    if (gone) return
    if (Array.isArray(data) && data[0] === IMAGE_REPORT) {
      if (isEngineImage(data[1])) onImage(data[1])
      return
    }
    events.receive(data)
  })
  // A Web Worker has no exit event: an error it did not catch (its module failed to load, it ran
  // out of memory) is its end here.
  worker.addEventListener('error', (event) => {
    event.preventDefault()
    lose({ code: 'BACKEND_CRASHED', message: `the QuickJS worker failed: ${event.message ?? 'an error it did not catch'}` })
  })
  worker.addEventListener('messageerror', () =>
    lose({ code: 'BACKEND_CRASHED', message: 'a message from the QuickJS worker could not be read' }),
  )
  const start: WebWorkerStart = { settings, flags, replies }
  worker.postMessage([WEB_WORKER_START, start])
  // Started before the host had loaded them: they follow as the worker's next message.
  if (settings.wasiComing) void wasiComing?.().then((loaded) => !gone && worker.postMessage([WASI_FROM_HOST, loaded]))
  return {
    transport: {
      send: (batch) => worker.postMessage(batch),
      flags,
      ...(replies === undefined || flags === undefined
        ? {}
        : {
            replySync(reply) {
              writeReply(replies, reply)
              wakeSyncWaiter(flags)
            },
          }),
    },
    kill() {
      worker.terminate()
      // Reported after the caller's turn, as a worker thread's exit is.
      queueMicrotask(() => lose({ code: 'BACKEND_CRASHED', message: 'the QuickJS worker was terminated' }))
    },
    // A page's workers never keep anything alive.
    hold: () => undefined,
  }
}
