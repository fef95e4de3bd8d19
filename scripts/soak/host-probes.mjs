// What a soak run watches on the host: resident memory, libuv handles, and processes below
// this one (Linux /proc; elsewhere the count is reported as unknown).
import { readFileSync, readdirSync } from 'node:fs'

export const rssMb = () => process.memoryUsage().rss / 2 ** 20

/** Handles and requests keeping the event loop alive, by type (timers, sockets, pipes…). */
export function activeResources() {
  const counts = {}
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1
  return counts
}

/** Number of live processes descending from this one, or undefined without /proc. */
export function descendantProcesses() {
  let entries
  try {
    entries = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))
  } catch {
    return undefined
  }
  const parentOf = new Map()
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1')
      // Fields after the command name (which may hold spaces): state, ppid, …
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (state !== 'Z') parentOf.set(Number(entry), Number(ppid))
    } catch {
      // Exited while we looked.
    }
  }
  let count = 0
  const below = [process.pid]
  while (below.length > 0) {
    const pid = below.pop()
    for (const [child, parent] of parentOf) if (parent === pid) (count++, below.push(child))
  }
  return count
}
