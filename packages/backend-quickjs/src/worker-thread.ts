import type { RunError } from '@cordon/core'
import { createStopFlags, wakeSyncWaiter, type FarSideLink } from '@cordon/core/backend'
import type { Worker as NodeWorker } from 'node:worker_threads'
import { isEngineImage } from './engine-image.js'
import { IMAGE_REPORT, WASI_FROM_HOST, type WorkerData, type WorkerStart } from './worker/worker-data.js'

type WorkerThreads = typeof import('node:worker_threads')

/**
 * Starts one QuickJS worker and links it to the pool. The worker is unreferenced while idle, so an
 * idle pool never keeps the host process alive. Each worker has its own stop flags and reply line.
 */
export function startWorker(threads: WorkerThreads, { entry, settings, events, onImage, wasiComing }: WorkerStart): FarSideLink {
  const flags = createStopFlags()
  const { port1: hostEnd, port2: workerEnd } = new threads.MessageChannel()
  const data: WorkerData = { settings, flags, replyPort: workerEnd }
  const worker: NodeWorker = new threads.Worker(entry, {
    workerData: data,
    transferList: [workerEnd],
    // Nothing of the host's environment is needed in a worker; a worker that is escaped into
    // then finds no secrets there.
    env: {},
    // Nor the host's flags: some break a worker's start (`--input-type`, used with `node -e`).
    execArgv: [],
  })
  hostEnd.on('message', (message: unknown) => {
    if (Array.isArray(message) && message[0] === IMAGE_REPORT && isEngineImage(message[1])) onImage(message[1])
  })
  // Started before the host had loaded them: they follow as the worker's first message.
  if (settings.wasiComing) void wasiComing?.().then((loaded) => worker.postMessage([WASI_FROM_HOST, loaded]))
  worker.unref()
  hostEnd.unref()
  let failure: RunError | undefined
  worker.on('message', (batch: unknown) => events.receive(batch))
  worker.on('error', (error: Error & { code?: unknown }) => {
    failure ??= workerFailure(error)
  })
  worker.on('exit', (code) => {
    hostEnd.close()
    events.lost(failure ?? { code: 'BACKEND_CRASHED', message: 'the QuickJS worker exited (code ' + code + ')' })
  })
  return {
    transport: {
      send: (batch) => worker.postMessage(batch),
      flags,
      replySync(reply) {
        hostEnd.postMessage(reply)
        if (flags !== undefined) wakeSyncWaiter(flags)
      },
    },
    kill() {
      failure ??= { code: 'BACKEND_CRASHED', message: 'the QuickJS worker was terminated' }
      void worker.terminate()
    },
    hold(held) {
      if (held) worker.ref()
      else worker.unref()
    },
  }
}

function workerFailure(error: Error & { code?: unknown }): RunError {
  if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return { code: 'MEMORY_LIMIT', message: 'the QuickJS worker ran out of memory for its own heap' }
  }
  return { code: 'BACKEND_CRASHED', message: 'the QuickJS worker failed: ' + error.message }
}
