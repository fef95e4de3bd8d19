/**
 * Answers to synchronous tool calls for a Web Worker, through shared memory: a blocked Web
 * Worker cannot receive a message (it has no receiveMessageOnPort), but it can read memory it
 * shares with the page. Only where the page is cross-origin isolated (SharedArrayBuffer).
 *
 * Layout: Int32 [0] counts the replies written, [1] is the byte length of the last one, its UTF-8
 * JSON from byte 8. The page answers every synchronous call once, in order (or ends the worker),
 * so the worker's n-th call is answered by reply n; an answer to a call the worker gave up on
 * (its run was stopped) is only ever an earlier number.
 */
import type { SyncReply } from '@cordon/core/backend'

const HEADER_BYTES = 8
const FIRST_BYTES = 64 * 1024
/** Largest answer: what a tool may return to a guest is far smaller (maxOutputBytes). */
const MAX_BYTES = 64 * 1024 * 1024

type GrowableShared = SharedArrayBuffer & { grow?(length: number): void; growable?: boolean }

/** A new line, or undefined where memory cannot be shared. */
export function createReplyLine(): SharedArrayBuffer | undefined {
  if (typeof SharedArrayBuffer !== 'function') return undefined
  const Shared = SharedArrayBuffer as unknown as new (length: number, options?: { maxByteLength: number }) => SharedArrayBuffer
  return new Shared(HEADER_BYTES + FIRST_BYTES, { maxByteLength: HEADER_BYTES + MAX_BYTES })
}

/** The page's side: writes the next answer. The caller then wakes the worker (wakeSyncWaiter). */
export function writeReply(line: SharedArrayBuffer, reply: SyncReply): void {
  let bytes = new TextEncoder().encode(JSON.stringify(reply))
  const growable = line as GrowableShared
  if (HEADER_BYTES + bytes.length > line.byteLength) {
    // A browser without growable shared memory keeps the first size.
    if (growable.growable === true && bytes.length <= MAX_BYTES) growable.grow?.(HEADER_BYTES + bytes.length)
    else bytes = new TextEncoder().encode(JSON.stringify(tooLarge(bytes.length)))
  }
  new Uint8Array(line, HEADER_BYTES, bytes.length).set(bytes)
  const header = new Int32Array(line, 0, 2)
  Atomics.store(header, 1, bytes.length)
  Atomics.add(header, 0, 1)
}

/** The worker's side: the answer numbered `count`, once written; else undefined. */
export function readReply(line: SharedArrayBuffer, count: number): SyncReply | undefined {
  const header = new Int32Array(line, 0, 2)
  if (Atomics.load(header, 0) < count) return undefined
  // TextDecoder refuses views of shared memory: copy the bytes out first.
  const bytes = new Uint8Array(line, HEADER_BYTES, Atomics.load(header, 1)).slice()
  return JSON.parse(new TextDecoder().decode(bytes)) as SyncReply
}

function tooLarge(bytes: number): SyncReply {
  return {
    ok: false,
    name: 'RangeError',
    message: `the tool's answer (${bytes} bytes) is larger than a Web Worker's reply line (${MAX_BYTES} bytes)`,
  }
}
