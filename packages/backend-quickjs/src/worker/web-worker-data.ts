import type { WorkerData } from './worker-data.js'

/** Tags a Web Worker's first message, its start data: `[WEB_WORKER_START, WebWorkerStart]`. */
export const WEB_WORKER_START = 'start'

export interface WebWorkerStart {
  settings: WorkerData['settings']
  /** The stop flags, where the page is cross-origin isolated (SharedArrayBuffer); else stops end the worker. */
  flags: Int32Array | undefined
  /** Answers to synchronous tool calls (shared-reply-line.ts), with the flags; else sync tools are UNSUPPORTED. */
  replies: SharedArrayBuffer | undefined
}

export function isWebWorkerStart(message: unknown): message is [typeof WEB_WORKER_START, WebWorkerStart] {
  return Array.isArray(message) && message.length === 2 && message[0] === WEB_WORKER_START
}
