/**
 * The host samples a running child's resident memory from /proc and ends the run when it
 * grows past the budget. This is what bounds ArrayBuffers and other off-heap memory while
 * the guest runs synchronous code (the child cannot check itself then). Linux only.
 */
import type { GuestChild } from './guest-child.js'
import { rssAllowanceBytes } from './memory-budget.js'
import { readStatusKb } from './proc-stats.js'

export function watchMemory(child: GuestChild, scriptChars: number, intervalMs: number, onExceeded: (message: string) => void): () => void {
  const pid = child.nodePid
  const base = child.idleRssBytes
  if (intervalMs <= 0 || pid === undefined || base === undefined) return () => {}
  const allowance = rssAllowanceBytes(child.memoryMb, scriptChars)
  const timer = setInterval(() => {
    const rssKb = readStatusKb(pid, 'VmRSS')
    if (rssKb === undefined) return
    const grown = rssKb * 1024 - base
    if (grown > allowance) {
      clearInterval(timer)
      onExceeded(
        `the guest used ${Math.round(grown / 1048576)} MB, over memoryMb (${child.memoryMb} MB) with its allowance for young generation and engine overhead`,
      )
    }
  }, intervalMs)
  return () => clearInterval(timer)
}
