/** A QuickJS worker thread under Node, Bun or Deno (serve-worker.ts has what it serves). */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads'
import { waitForSyncReply, type Report, type SyncReply } from '@cordon/core/backend'
import { IMAGE_REPORT, type WorkerData } from './worker-data.js'
import { serveWorker } from './serve-worker.js'

const { settings, flags, replyPort } = workerData as WorkerData
const port = parentPort
if (port === null) throw new Error('the QuickJS worker entry must run in a worker thread')

/** Blocks this thread until the host answers, or the run is stopped (then undefined). */
function callSync(message: Report, slot: number): SyncReply | undefined {
  if (flags === undefined) return undefined
  // Only one call waits at a time, so whatever is queued is the answer to a call given up when
  // its run was stopped: the host replies after the stop it caused. It belongs to no run now.
  while (receiveMessageOnPort(replyPort) !== undefined);
  port?.postMessage([message])
  return waitForSyncReply(flags, slot, () => receiveMessageOnPort(replyPort)?.message as SyncReply | undefined)
}

const receive = serveWorker(settings, flags, {
  send: (batch) => port.postMessage(batch),
  sendImage: (image) => replyPort.postMessage([IMAGE_REPORT, image]),
  callSync,
})
port.on('message', receive)
