import { readFileSync } from 'node:fs'

/**
 * How long, in all, some task on this machine has waited for a CPU: the "some" line of Linux's
 * pressure stall information (/proc/pressure/cpu, in µs), read as ms. Undefined where the kernel
 * does not report it (other systems, PSI disabled, a container that hides it): then no
 * contention is ever assumed and the checks keep their plain slack.
 */
function cpuWaitedMs(): number | undefined {
  try {
    const some = /^some .*\btotal=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'))
    return some ? Number(some[1]) / 1000 : undefined
  } catch {
    return undefined
  }
}

/**
 * Starts measuring CPU contention: the returned function says how many ms, since the start, some
 * task on the machine was ready to run but had no CPU. On an idle machine that stays near 0 —
 * a guest spinning on one core of two leaves the other free, so even a backend that holds the
 * host's thread adds none — and on a loaded one it grows with the time every thread lost.
 */
export function measureContention(): () => number {
  const start = cpuWaitedMs()
  return () => {
    if (start === undefined) return 0
    const now = cpuWaitedMs()
    return now === undefined ? 0 : Math.max(0, now - start)
  }
}

/**
 * The lateness a timing check accepts: its slack, plus the time the CPU was contended while the
 * run was measured, up to twice the slack. A late result on a loaded machine is excused by what
 * the machine really lost; a backend late by whole seconds still fails under any load.
 */
export function allowedLatenessMs(slackMs: number, contendedMs: number): number {
  return slackMs + Math.min(contendedMs, 2 * slackMs)
}
