import fs from 'node:fs'
import { FrameReader } from '../framing.js'

const PARENT_CHECK_MS = 500
const READ_BYTES = 64 * 1024
/** Between reads that found the pipe empty while blocked on the host. */
const EMPTY_PIPE_PAUSE_MS = 0.05

interface BlockingWait {
  kind: string
  found?: unknown[]
  deferred: unknown[][]
}

export interface HostLink {
  /**
   * Blocks this thread until the host sends a frame of `kind` (a synchronous tool call's answer)
   * and returns it. Frames that come meanwhile are handed to the handler afterwards, in order.
   */
  waitFor(kind: string): unknown[]
}

/**
 * Feeds the host's frames from stdin to `handle`, and ends this child when the host goes: stdin
 * closes, a pipe breaks, or the parent changes (the host died). Shared by both child entries.
 */
export function listenToHost(handle: (frame: unknown[]) => void, quit: (reason: string) => never): HostLink {
  let waiting = undefined as BlockingWait | undefined
  const reader = new FrameReader(0xffff_ffff, {
    frame: (frame) => {
      if (waiting === undefined) return handle(frame)
      if (waiting.found === undefined && frame[0] === waiting.kind) waiting.found = frame
      else waiting.deferred.push(frame)
    },
    violation: quit,
  })
  process.stdin.on('data', (chunk: Buffer) => reader.push(chunk))
  process.stdin.on('end', () => process.exit(0))
  process.stdin.on('error', () => process.exit(0))
  process.stdout.on('error', () => process.exit(0))
  const parent = process.ppid
  setInterval(() => {
    if (process.ppid !== parent) process.exit(0)
  }, PARENT_CHECK_MS).unref()

  const pause = new Int32Array(new SharedArrayBuffer(4))
  return {
    waitFor(kind) {
      if (waiting !== undefined) quit('a blocking wait inside another')
      const state: BlockingWait = { kind, deferred: [] }
      waiting = state
      const buffer = Buffer.allocUnsafe(READ_BYTES)
      try {
        // The stream's own reads happen only when the event loop runs, which it cannot now: these
        // bytes are the next ones, and the reader still holds any partial frame the stream left.
        while (state.found === undefined) {
          let read: number
          try {
            read = fs.readSync(0, buffer, 0, READ_BYTES, null)
          } catch (error) {
            // libuv made the pipe non-blocking: nothing yet.
            if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error
            Atomics.wait(pause, 0, 0, EMPTY_PIPE_PAUSE_MS)
            continue
          }
          if (read === 0) process.exit(0)
          reader.push(Buffer.from(buffer.subarray(0, read)))
        }
      } finally {
        waiting = undefined
      }
      // Before any later chunk from the stream, which only the event loop delivers.
      if (state.deferred.length > 0) queueMicrotask(() => state.deferred.forEach(handle))
      return state.found
    },
  }
}
