// Waits until this process's event loop is idle, so that work a pool started in the background
// (refilling after a run) is done before the next timed sample instead of landing inside it.
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'

const WINDOW_MS = 2
const QUIET_WINDOWS = 3

/**
 * Resolves after at least `minMs`, once the loop was mostly idle for QUIET_WINDOWS windows in a
 * row, or after `maxMs`. Event-loop utilization counts only this thread's own work, so other
 * processes loading the machine do not keep it waiting.
 */
export async function untilIdle(minMs = 5, maxMs = 100) {
  const start = performance.now()
  let quiet = 0
  while (performance.now() - start < maxMs) {
    const before = performance.eventLoopUtilization()
    await sleep(WINDOW_MS)
    quiet = performance.eventLoopUtilization(before).utilization < 0.5 ? quiet + 1 : 0
    if (quiet >= QUIET_WINDOWS && performance.now() - start >= minMs) return
  }
}
