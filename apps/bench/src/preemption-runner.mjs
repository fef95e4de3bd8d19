// What a guest that never yields does to the host, per cordon contender: how long the host's
// event loop stalls while it spins, how long an abort takes to end it, and when a 500 ms deadline
// ends a loop whose every step is one long native call (no interrupt check inside it).
import { formatMs } from './stats.mjs'

const SPIN = 'for (;;) {}'
const NATIVE = "const big = 'x'.repeat(4 * 1024 * 1024)\nfor (;;) big.indexOf('y')"

/** Runs `work` while a 5 ms interval ticks; returns its longest gap in ms. */
async function longestGap(work) {
  let longest = 0
  let last = performance.now()
  const interval = setInterval(() => {
    const now = performance.now()
    longest = Math.max(longest, now - last)
    last = now
  }, 5)
  try {
    await work()
    return Math.max(longest, performance.now() - last)
  } finally {
    clearInterval(interval)
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

async function expectCode(promise, ...codes) {
  const r = await promise
  if (r.ok || !codes.includes(r.error.code))
    throw new Error(`expected ${codes.join(' or ')}, got ${r.ok ? 'ok' : `${r.error.code}: ${r.error.message}`}`)
  return r.error.code
}

async function measureOne(c, samples) {
  const { sandbox } = c
  const stall = []
  const abort = []
  const native = []
  const codes = new Set()
  for (let i = 0; i < samples; i++) {
    stall.push(await longestGap(() => expectCode(sandbox.run(SPIN, { timeoutMs: 1_000 }), 'TIMEOUT')))
    const controller = new AbortController()
    let abortedAt = 0
    setTimeout(() => {
      abortedAt = performance.now()
      controller.abort()
    }, 200)
    // A host thread held by the guest fires the abort only at the deadline (the run then ends
    // TIMEOUT, which the table shows): keep that deadline short.
    codes.add(await expectCode(sandbox.run(SPIN, { timeoutMs: 3_000, signal: controller.signal }), 'ABORTED', 'TIMEOUT'))
    abort.push(performance.now() - abortedAt)
    const begun = performance.now()
    await expectCode(sandbox.run(NATIVE, { timeoutMs: 500, memoryMb: 64 }), 'TIMEOUT')
    native.push(performance.now() - begun)
  }
  return { stallMs: median(stall), abortMs: median(abort), abortCodes: [...codes].join('/'), nativeDeadlineMs: median(native), samples }
}

export async function measurePreemption(contenders, plan) {
  const rows = []
  for (const c of contenders.filter((c) => c.sandbox !== undefined && !c.unavailable)) {
    const base = { contenderId: c.id, contender: c.name, engine: c.engine }
    if (plan.preemption.skip?.includes(c.id)) {
      rows.push({ ...base, status: 'skipped', reason: 'skipped in --quick (seconds per sample)' })
      continue
    }
    try {
      rows.push({ ...base, status: 'ok', ...(await measureOne(c, plan.preemption.samples)) })
    } catch (error) {
      rows.push({ ...base, status: 'failed', reason: String(error?.message ?? error) })
    }
  }
  return rows
}

export function preemptionTable(rows) {
  const head = [
    'contender',
    'event-loop stall while a guest spins (ms)',
    'abort → result (ms, code)',
    '500 ms deadline over native calls ends at (ms)',
    'samples',
  ]
  const body = rows.map((r) =>
    r.status === 'ok'
      ? [r.contender, formatMs(r.stallMs), `${formatMs(r.abortMs)} (${r.abortCodes})`, formatMs(r.nativeDeadlineMs), String(r.samples)]
      : [r.contender, `${r.status}: ${r.reason}`, '', '', ''],
  )
  return [
    "### Preemption: a guest that never yields (longest gap of a 5 ms interval during a 1 s spin; abort 200 ms into a spin; `for (;;) big.indexOf('y')` over 4 MB)",
    '',
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...body.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n')
}
