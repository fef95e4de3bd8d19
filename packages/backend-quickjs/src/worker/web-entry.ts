/**
 * A QuickJS worker in a browser's Web Worker (serve-worker.ts has what it serves). Its settings
 * come as the first message (a Web Worker has no workerData). A synchronous tool call blocks on
 * the shared stop flags and reads its answer from shared memory (shared-reply-line.ts): a blocked
 * Web Worker cannot receive a message. Without cross-origin isolation there is neither, and the
 * backend declares syncHostCalls false.
 */
import { waitForSyncReply, type Report, type SyncReply } from '@cordon/core/backend'
import { readReply } from '../shared-reply-line.js'
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
  const { settings, flags, replies } = data[1]
  let calls = 0
  /** Blocks until the page's answer to this call is on the line, or the run is stopped (then undefined). */
  const callSync = (message: Report, slot: number): SyncReply | undefined => {
    if (flags === undefined || replies === undefined) return undefined
    const call = ++calls
    scope.postMessage([message])
    return waitForSyncReply(flags, slot, () => readReply(replies, call))
  }
  receive = serveWorker(settings, flags, {
    send: (batch) => scope.postMessage(batch),
    sendImage: (image) => scope.postMessage([IMAGE_REPORT, image]),
    ...(replies === undefined ? {} : { callSync }),
  })
}
