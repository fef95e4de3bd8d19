/**
 * Isolates isolated-vm lost in this process. When V8 runs out of memory in a way isolated-vm
 * cannot contain, isolated-vm parks the isolate's thread forever instead of aborting the process
 * (see guest-vm.ts). The process and its other isolates carry on, but each lost isolate keeps a
 * thread and its whole heap until the process ends, and the process can no longer exit by
 * itself: isolated-vm waits for the parked thread at exit. These are process-wide costs, so they
 * are counted per process (per copy of this module), not per backend.
 */
let count = 0
let last: string | undefined

export function recordLostIsolate(message: string): void {
  count++
  last = message
}

export interface LostIsolates {
  readonly count: number
  readonly last: string | undefined
}

export function lostIsolates(): LostIsolates {
  return { count, last }
}
