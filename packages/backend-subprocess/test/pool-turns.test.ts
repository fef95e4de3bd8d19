import { describe, expect, it } from 'vitest'
import type { GuestChild } from '../src/guest-child.js'
import { WarmPool } from '../src/pool.js'

/** A stand-in for a child process: ready at once, gone when killed. */
function fakeChild(): GuestChild {
  let close = () => {}
  const closed = new Promise<void>((resolve) => (close = resolve))
  let alive = true
  return {
    ready: Promise.resolve(),
    closed,
    get isReady() {
      return alive
    },
    get alive() {
      return alive
    },
    setRef() {},
    kill() {
      alive = false
      close()
    },
  } as unknown as GuestChild
}

describe('the warm pool starts children one per turn of the event loop', () => {
  it('for a burst of runs with no spare, and for a refill of several spares', async () => {
    // A turn counter: each start records the turn it happened in.
    let turn = 0
    let counting = true
    const tick = () => {
      if (!counting) return
      turn++
      setImmediate(tick)
    }
    setImmediate(tick)
    const startedIn: number[] = []
    const pool = new WarmPool(
      () => {
        startedIn.push(turn)
        return fakeChild()
      },
      3,
      60_000,
    )
    try {
      // Five runs at once with no spare: five starts. Then the spares (3) come in later turns.
      await Promise.all(Array.from({ length: 5 }, () => pool.acquire(64)))
      await pool.warm(64)
      counting = false
      expect(startedIn.length).toBeGreaterThanOrEqual(8)
      // Starting a process blocks the host's thread: never two in the same turn.
      expect(new Set(startedIn).size).toBe(startedIn.length)
    } finally {
      counting = false
      await pool.dispose()
    }
  })
})
