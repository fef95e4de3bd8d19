/**
 * Shared stop flags: one Int32 per run slot in memory both sides see (a SharedArrayBuffer), so a
 * host can stop guest code that keeps the far side's thread busy and cannot read messages. The
 * far side's engine polls its run's slot (see `pollStop`); the host sets it on deadline, abort or
 * dispose. Slot 0 is the synchronous reply line's counter: the far side waits on it while the
 * host answers a synchronous tool call.
 */
export const SYNC_REPLY_INDEX = 0

/** Run slots per far side: at most this many runs are in flight on one worker or child. */
export const RUN_SLOTS = 64

export function createStopFlags(): Int32Array | undefined {
  // Browsers without cross-origin isolation have no SharedArrayBuffer: stops then travel as
  // messages only, and a guest that never yields runs until the far side is terminated.
  if (typeof SharedArrayBuffer !== 'function') return undefined
  return new Int32Array(new SharedArrayBuffer((RUN_SLOTS + 1) * Int32Array.BYTES_PER_ELEMENT))
}

export function slotIndex(slot: number): number {
  return slot + 1
}

/** Host side: tell the run in `slot` to stop, and wake the far side if it waits on a sync reply. */
export function raiseStop(flags: Int32Array, slot: number): void {
  Atomics.store(flags, slotIndex(slot), 1)
  wakeSyncWaiter(flags)
}

/** Host side: wakes a far side blocked in waitForSyncReply (its answer is there, or a stop). */
export function wakeSyncWaiter(flags: Int32Array): void {
  Atomics.add(flags, SYNC_REPLY_INDEX, 1)
  Atomics.notify(flags, SYNC_REPLY_INDEX)
}

/**
 * Far side: blocks this thread until `take` finds the host's answer to a synchronous call, or the
 * run in `slot` is stopped (then undefined). `take` is checked after each wake-up.
 */
export function waitForSyncReply<T>(flags: Int32Array, slot: number, take: () => T | undefined): T | undefined {
  for (;;) {
    const seen = Atomics.load(flags, SYNC_REPLY_INDEX)
    const reply = take()
    if (reply !== undefined) return reply
    if (stopRaised(flags, slot)) return undefined
    // Woken by the host's answer or a stop; the timeout only bounds a missed wake-up.
    Atomics.wait(flags, SYNC_REPLY_INDEX, seen, 100)
  }
}

export function clearStop(flags: Int32Array, slot: number): void {
  Atomics.store(flags, slotIndex(slot), 0)
}

export function stopRaised(flags: Int32Array, slot: number): boolean {
  return Atomics.load(flags, slotIndex(slot)) !== 0
}
