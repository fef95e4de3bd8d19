import { FrameReader } from '../framing.js'

const PARENT_CHECK_MS = 500

/**
 * Feeds the host's frames from stdin to `handle`, and ends this child when the host goes: stdin
 * closes, a pipe breaks, or the parent changes (the host died). Shared by both child entries.
 */
export function listenToHost(handle: (frame: unknown[]) => void, quit: (reason: string) => never): void {
  const reader = new FrameReader(0xffff_ffff, { frame: handle, violation: quit })
  process.stdin.on('data', (chunk: Buffer) => reader.push(chunk))
  process.stdin.on('end', () => process.exit(0))
  process.stdin.on('error', () => process.exit(0))
  process.stdout.on('error', () => process.exit(0))
  const parent = process.ppid
  setInterval(() => {
    if (process.ppid !== parent) process.exit(0)
  }, PARENT_CHECK_MS).unref()
}
