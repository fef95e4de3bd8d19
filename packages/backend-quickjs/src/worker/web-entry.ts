/**
 * A QuickJS worker in a browser's Web Worker (serve-worker.ts has what it serves). Its settings
 * come as the first message (a Web Worker has no workerData). Synchronous tools need a way to
 * block for the host's answer that a Web Worker lacks (no receiveMessageOnPort): a guest calling
 * one gets a TypeError-like error; async tools work.
 */
import { IMAGE_REPORT } from './worker-data.js'
import { isWebWorkerStart } from './web-worker-data.js'
import { serveWorker } from './serve-worker.js'

interface WorkerScope {
  postMessage(message: unknown): void
  onmessage: ((event: { data: unknown }) => void) | null
}

const scope = globalThis as unknown as WorkerScope
let receive: ((message: unknown) => void) | undefined
scope.onmessage = ({ data }) => {
  if (receive !== undefined) return receive(data)
  if (!isWebWorkerStart(data)) return
  const { settings, flags } = data[1]
  receive = serveWorker(settings, flags, {
    send: (batch) => scope.postMessage(batch),
    sendImage: (image) => scope.postMessage([IMAGE_REPORT, image]),
  })
}
