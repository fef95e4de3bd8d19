import type { RunEvent } from '@cordon/core'
import {
  expectDeadline,
  expectError,
  expectHealthy,
  expectOk,
  loggedAnything,
  logMessages,
  timedRun,
  timedRunThatStarts,
} from '../harness/run.js'
import { allowedLatenessMs, measureContention } from '../harness/cpu-contention.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'

/**
 * For backends that declare `preemptive`: guest code never holds the host's thread, and a stop
 * reaches a guest that never yields. The bounds are generous (a backend that runs the guest on
 * the host's thread fails them by whole seconds); apps/bench measures the real figures.
 */
const preemptive = { preemptive: true } as const

const SPIN_MS = 500
/** A 5 ms interval fires about 100 times in half a second; a thread held by the guest fires it 0 or 1 times. */
const MIN_TICKS = 20

/** Counts the ticks of a 5 ms interval while `work` runs. */
async function ticksDuring<T>(work: () => Promise<T>): Promise<{ value: T; ticks: number; maxGapMs: number }> {
  let ticks = 0
  let maxGapMs = 0
  let last = performance.now()
  const interval = setInterval(() => {
    const now = performance.now()
    maxGapMs = Math.max(maxGapMs, now - last)
    last = now
    ticks++
  }, 5)
  try {
    const value = await work()
    return { value, ticks, maxGapMs: Math.max(maxGapMs, performance.now() - last) }
  } finally {
    clearInterval(interval)
  }
}

function expectTurning(ticks: number, maxGapMs: number, what: string): void {
  if (ticks < MIN_TICKS) {
    throw new Error(
      `the host's 5 ms interval fired ${ticks} times ${what} (longest gap ${Math.round(maxGapMs)} ms): guest code held the host's thread`,
    )
  }
}

/**
 * The interval fired in at least a third of the 5 ms slots of `elapsedMs`. Parsing a large
 * program on the host's thread takes most of a run's time there in one piece (a 1 MB program:
 * ~700 of ~850 ms on a slow VM), leaving a sixth of the ticks.
 */
function expectTurningThroughout(ticks: number, maxGapMs: number, elapsedMs: number, what: string): void {
  if (ticks < elapsedMs / 5 / 3) {
    throw new Error(
      `the host's 5 ms interval fired ${ticks} times in ${Math.round(elapsedMs)} ms ${what} (longest gap ${Math.round(maxGapMs)} ms): the host's thread was held`,
    )
  }
}

/** `count` statements: ~7 bytes each, TypeScript annotations on the first line when `typed`. */
function largeProgram(count: number, typed: boolean): string {
  return `let n${typed ? ': number' : ''} = 0\n${'n += 1\n'.repeat(count)}n`
}

export const preemptionChecks: ConformanceCheck[] = [
  {
    group: 'preemption',
    name: "the host's event loop keeps turning while a large program, JavaScript or TypeScript, is prepared and run",
    requires: preemptive,
    timeoutMs: 60_000,
    async run({ sandbox }) {
      // ~1 MB, the most code a run takes by default (maxCodeBytes), and ~200 KB of TypeScript:
      // parsed and compiled wherever the backend likes, but not on the host's thread in one go.
      for (const [count, typed] of [
        [140_000, false],
        [28_000, true],
      ] as const) {
        const what = `while a ${typed ? 'TypeScript' : 'JavaScript'} program of ${Math.round((count * 7) / 1000)} KB was prepared and run`
        const {
          value: timed,
          ticks,
          maxGapMs,
        } = await ticksDuring(() => timedRun(sandbox, largeProgram(count, typed), { timeoutMs: 30_000 }))
        expectSameValue(expectOk(timed.result), count, 'the large program')
        expectTurningThroughout(ticks, maxGapMs, timed.elapsedMs, what)
      }
    },
  },
  {
    group: 'preemption',
    name: "the host's event loop keeps turning while a guest spins",
    requires: preemptive,
    async run({ sandbox, options }) {
      const {
        value: timed,
        ticks,
        maxGapMs,
      } = await ticksDuring(() =>
        timedRunThatStarts(sandbox, "console.log('spinning')\nwhile (true) {}", { timeoutMs: SPIN_MS }, loggedAnything),
      )
      expectDeadline(timed, 'TIMEOUT', SPIN_MS, options.timeoutSlackMs)
      expectTurning(ticks, maxGapMs, `during a ${SPIN_MS} ms spin`)
      expectSameValue(logMessages(timed.result), ['spinning'], 'the logs before the spin')
      await expectHealthy(sandbox, 'a spin')
    },
  },
  {
    group: 'preemption',
    name: "the host's event loop keeps turning while a guest spins inside a timer callback and in promise jobs",
    requires: preemptive,
    async run({ sandbox, options }) {
      for (const body of ['setTimeout(() => { for (;;) {} }, 0)\nawait new Promise(() => {})', 'await null\nfor (;;) {}']) {
        const { value: timed, ticks, maxGapMs } = await ticksDuring(() => timedRun(sandbox, body, { timeoutMs: SPIN_MS }))
        expectDeadline(timed, 'TIMEOUT', SPIN_MS, options.timeoutSlackMs)
        expectTurning(ticks, maxGapMs, `while running ${JSON.stringify(body)}`)
      }
    },
  },
  {
    group: 'preemption',
    name: 'abort ends a spinning guest ABORTED at once, long before its deadline',
    requires: preemptive,
    async run({ sandbox, options }) {
      const controller = new AbortController()
      // Aborted 150 ms after the guest said it is spinning (not after run() began: a backend may
      // first start an engine, which on a loaded machine can take longer than that).
      let abortedAt: number | undefined
      const onEvent = (event: RunEvent) => {
        if (event.type !== 'log' || abortedAt !== undefined) return
        abortedAt = Infinity
        setTimeout(() => {
          abortedAt = performance.now()
          controller.abort()
        }, 150)
      }
      // 5 s: long enough to tell a prompt abort from the deadline, short enough that a backend
      // holding the host's thread (whose timers, the abort's included, then wait) fails quickly.
      const timed = await timedRun(sandbox, "console.log('spinning')\nfor (;;) {}", {
        signal: controller.signal,
        timeoutMs: 5_000,
        onEvent,
      })
      expectError(timed.result, 'ABORTED')
      if (abortedAt === undefined || !Number.isFinite(abortedAt)) throw new Error('the run ended ABORTED before its abort')
      const lag = performance.now() - abortedAt
      if (lag > options.timeoutSlackMs) {
        throw new Error(`ABORTED arrived ${Math.round(lag)} ms after the abort, over the ${options.timeoutSlackMs} ms slack`)
      }
      expectSameValue(logMessages(timed.result), ['spinning'], 'the logs before the abort')
      await expectHealthy(sandbox, 'an aborted spin')
    },
  },
  {
    group: 'preemption',
    name: 'the deadline holds when each step of a guest loop is one long native call',
    requires: preemptive,
    async run({ sandbox, options }) {
      const body = "const big = 'x'.repeat(4 * 1024 * 1024)\nfor (;;) big.indexOf('y')"
      const timed = await timedRun(sandbox, body, { timeoutMs: 500, memoryMb: 64 })
      expectDeadline(timed, 'TIMEOUT', 500, options.timeoutSlackMs)
      await expectHealthy(sandbox, 'a deadline over long native calls')
    },
  },
  {
    group: 'preemption',
    name: 'dispose() during a spin returns promptly and the run resolves ABORTED',
    requires: preemptive,
    async run({ newSandbox, options }) {
      const sandbox = await newSandbox()
      const running = timedRun(sandbox, 'for (;;) {}', { timeoutMs: 5_000 })
      await new Promise((resolve) => setTimeout(resolve, 150))
      const started = performance.now()
      const contended = measureContention()
      await sandbox.dispose()
      const disposeMs = performance.now() - started
      // On a loaded machine, the time the CPU was contended meanwhile is excused (up to twice the slack).
      if (disposeMs > allowedLatenessMs(options.timeoutSlackMs, contended()))
        throw new Error(`dispose() took ${Math.round(disposeMs)} ms during a spin`)
      const timed = await running
      expectError(timed.result, 'ABORTED')
      if (timed.elapsedMs > 150 + disposeMs + options.timeoutSlackMs) {
        throw new Error(`the spinning run resolved ${Math.round(timed.elapsedMs)} ms after it started`)
      }
    },
  },
  {
    group: 'preemption',
    name: "a session's dispose() during a spin returns promptly and its run resolves ABORTED",
    requires: { preemptive: true, sessions: true },
    async run({ sandbox, options }) {
      const session = await sandbox.createSession()
      const running = session.run('for (;;) {}', { timeoutMs: 5_000 })
      await new Promise((resolve) => setTimeout(resolve, 150))
      const started = performance.now()
      await session.dispose()
      const disposeMs = performance.now() - started
      if (disposeMs > options.timeoutSlackMs) throw new Error(`session.dispose() took ${Math.round(disposeMs)} ms during a spin`)
      expectError(await running, 'ABORTED')
      await expectHealthy(sandbox, 'a session disposed during a spin')
    },
  },
  {
    group: 'preemption',
    name: 'runs in flight alongside a spinning guest finish on time',
    requires: preemptive,
    async run({ sandbox, options }) {
      const boundMs = 50 + 2 * options.timeoutSlackMs
      // The runs beside the spin may need a fresh worker or child, which a loaded machine can take
      // longer than the bound to start: a slow first try is tried once more, and finds it started.
      // A backend whose runs wait behind the spin is slow in every try.
      let elapsedMs = Infinity
      for (let tries = 0; tries < 2 && elapsedMs > boundMs; tries++) {
        // Timed from the start: a backend that holds the host's thread delays the sleep itself.
        const started = performance.now()
        // The spin outlasts the bound, so runs that waited behind it would miss the bound.
        const spinning = timedRun(sandbox, 'for (;;) {}', { timeoutMs: boundMs + 450 })
        await new Promise((resolve) => setTimeout(resolve, 50))
        for (let i = 0; i < 3; i++) {
          const timed = await timedRun(sandbox, 'let s = 0\nfor (let i = 0; i < 1000; i++) s += i\nreturn s', { timeoutMs: 10_000 })
          if (!timed.result.ok) throw new Error(`a run next to a spinning guest failed: ${timed.result.error.code}`)
        }
        elapsedMs = performance.now() - started
        expectError((await spinning).result, 'TIMEOUT')
      }
      if (elapsedMs > boundMs) {
        throw new Error(
          `three short runs next to a spinning guest were done ${Math.round(elapsedMs)} ms after it started: they waited behind it`,
        )
      }
    },
  },
]
