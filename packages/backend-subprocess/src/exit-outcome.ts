/** What a child's unexpected death means for the run. */
import type { ExecuteOutcome } from '@cordon/core/backend'
import { summarizeStderr } from './stderr-summary.js'

/** V8's and Node's last words when the heap (or one allocation) is too large. */
const OUT_OF_MEMORY =
  /heap out of memory|Reached heap limit|Fatal JavaScript invalid size error|Fatal process out of memory|Allocation failed - |invalid table size Allocation failed|Ineffective mark-compacts near heap limit/i

/** Whether a child's last words say it ran out of memory. */
export function ranOutOfMemory(text: string): boolean {
  return OUT_OF_MEMORY.test(text)
}

export function outcomeForExit(code: number | null, signal: NodeJS.Signals | null, stderrTail: string, memoryMb: number): ExecuteOutcome {
  if (ranOutOfMemory(stderrTail)) {
    return { ok: false, error: { code: 'MEMORY_LIMIT', message: `the guest ran out of memory (memoryMb ${memoryMb})` } }
  }
  const how = signal !== null ? `was killed by ${signal}` : `exited with code ${code ?? 'unknown'}`
  const tail = summarizeStderr(stderrTail)
  return {
    ok: false,
    error: { code: 'BACKEND_CRASHED', message: `the child process ${how} before the guest finished${tail === '' ? '' : `: ${tail}`}` },
  }
}
