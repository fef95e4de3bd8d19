/**
 * What a QuickJS worker serves, on any worker platform (Node's worker threads, a browser's Web
 * Workers): the inline backend over the channel protocol. The host is trusted here; it is the
 * side that checks what a worker sends.
 */
import { serveBackend, type Report, type SyncReply } from '@cordon/core/backend'
import type { EngineImage } from '../engine-image.js'
import { createInlineBackend } from '../inline-backend.js'
import { isWasiFromHost, type WasiFromHost, type WorkerData } from './worker-data.js'

export interface WorkerLine {
  /** Sends a batch of reports to the host. */
  send(batch: unknown): void
  /** Hands the engine image this worker took to the host, for the workers it starts later. */
  sendImage(image: EngineImage): void
  /** Blocks until the host answers a synchronous tool call (undefined: stopped); absent where a worker cannot block for one. */
  callSync?: (message: Report, slot: number) => SyncReply | undefined
}

/** Starts the worker's backend; the returned function takes each message from the host. */
export function serveWorker(settings: WorkerData['settings'], flags: Int32Array | undefined, line: WorkerLine): (message: unknown) => void {
  // quickjs-wasi's module and engine image: in the worker's settings, or as the host's first
  // message when the host was still loading them as this worker started.
  let handOver: ((loaded: WasiFromHost) => void) | undefined
  const wasiFromHost =
    settings.wasiFromHost ?? (settings.wasiComing ? new Promise<WasiFromHost>((resolve) => (handOver = resolve)) : undefined)

  const report = (message: Report) => line.send([message])
  const backend = createInlineBackend(
    {
      ...settings,
      thread: 'inline',
      workers: undefined,
      workerUrl: undefined,
      onDisposeError: settings.reportDisposeErrors ? (error) => report(['warn', describe(error)]) : undefined,
    },
    {
      pullLogs: true,
      sharedImage: settings.image,
      wasiFromHost,
      // The pool hands it to the workers it starts later, which then need not take their own.
      onImageTaken: (image) => line.sendImage(image),
    },
  )
  // A worker exists to run: its engine loads now, not when the first run arrives.
  backend.prepare?.()

  const served = serveBackend(backend, {
    send: (batch) => line.send(batch),
    flags,
    callSync: flags === undefined ? undefined : line.callSync,
  })
  return (message) => {
    if (isWasiFromHost(message)) handOver?.(message[1])
    else served.receive(message)
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
