/**
 * A QuickJS worker: the inline backend, served to the host over the channel protocol. The host
 * is trusted here; it is the side that checks what a worker sends.
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads'
import { SYNC_REPLY_INDEX, serveBackend, stopRaised, type Report, type SyncReply } from '@cordon/core/backend'
import { createInlineBackend } from '../inline-backend.js'
import { IMAGE_REPORT, isWasiFromHost, type WasiFromHost, type WorkerData } from './worker-data.js'

const { settings, flags, replyPort } = workerData as WorkerData
const port = parentPort
if (port === null) throw new Error('the QuickJS worker entry must run in a worker thread')

// quickjs-wasi's module and engine image: in the worker's data, or as the host's first message
// when the host was still loading them as this worker started.
let handOver: ((loaded: WasiFromHost) => void) | undefined
const wasiFromHost =
  settings.wasiFromHost ?? (settings.wasiComing ? new Promise<WasiFromHost>((resolve) => (handOver = resolve)) : undefined)

const backend = createInlineBackend(
  {
    ...settings,
    thread: 'inline',
    workers: undefined,
    onDisposeError: settings.reportDisposeErrors ? (error) => report(['warn', describe(error)]) : undefined,
  },
  {
    pullLogs: true,
    sharedImage: settings.image,
    wasiFromHost,
    // The pool hands it to the workers it starts later, which then need not take their own.
    onImageTaken: (image) => replyPort.postMessage([IMAGE_REPORT, image]),
  },
)

// A worker exists to run: its engine loads now, not when the first run arrives.
backend.prepare?.()

function report(message: Report): void {
  port?.postMessage([message])
}

/** Blocks this thread until the host answers, or the run is stopped (then undefined). */
function callSync(message: Report, slot: number): SyncReply | undefined {
  if (flags === undefined) return undefined
  // Only one call waits at a time, so whatever is queued is the answer to a call given up when
  // its run was stopped: the host replies after the stop it caused. It belongs to no run now.
  while (receiveMessageOnPort(replyPort) !== undefined);
  report(message)
  for (;;) {
    const seen = Atomics.load(flags, SYNC_REPLY_INDEX)
    const reply = receiveMessageOnPort(replyPort)
    if (reply !== undefined) return reply.message as SyncReply
    if (stopRaised(flags, slot)) return undefined
    // Woken by the host's answer or a stop; the timeout only bounds a missed wake-up.
    Atomics.wait(flags, SYNC_REPLY_INDEX, seen, 100)
  }
}

const served = serveBackend(backend, {
  send: (batch) => port.postMessage(batch),
  flags,
  callSync: flags === undefined ? undefined : callSync,
})
port.on('message', (batch: unknown) => {
  if (isWasiFromHost(batch)) handOver?.(batch[1])
  else served.receive(batch)
})

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
