// The targets, checked against one run's medians. Reported, never asserted: the machine
// is shared and noisy, so a missed target is a finding for the README, not a failed test.
import { TOOL_CALLS } from './workloads.mjs'

/** The best (lowest) median of a contender's methods for a workload, or undefined. */
function best(results, workloadId, contenderId) {
  const medians = (results.latency[workloadId] ?? []).filter((r) => r.contenderId === contenderId && r.status === 'ok').map((r) => r.median)
  return medians.length > 0 ? Math.min(...medians) : undefined
}

const ratio = (a, b) => (a === undefined || b === undefined ? undefined : a / b)

/** `value` compared with `limit`: at most (≤) or at least (≥). */
function target(id, text, value, limit, kind, show = (v) => `${v.toFixed(2)}×`) {
  const met = value === undefined ? undefined : kind === '≤' ? value <= limit : value >= limit
  return { id, text, value, limit, kind, met, shown: value === undefined ? 'not measured' : show(value) }
}

export function checkTargets(results) {
  const m = (w, id) => best(results, w, id)
  const ms = (v) => `${v.toFixed(2)} ms`
  const list = [
    target(
      'W1-quickjs',
      'W1: cordon QuickJS (default pool) ≤ 1.5× raw quickjs-emscripten',
      ratio(m('W1', 'cordon-quickjs'), m('W1', 'raw-quickjs')),
      1.5,
      '≤',
    ),
    target(
      'W1-ivm-fresh',
      'W1: cordon ivm, fresh isolate per run (poolSize 0) ≤ 1.0× raw isolated-vm',
      ratio(m('W1', 'cordon-ivm-nopool'), m('W1', 'raw-ivm')),
      1.0,
      '≤',
    ),
    target('W1-ivm-warm', 'W1: cordon ivm, warm pool ≤ 0.5× raw isolated-vm', ratio(m('W1', 'cordon-ivm'), m('W1', 'raw-ivm')), 0.5, '≤'),
    target('W1-subprocess-ms', "W1: cordon subprocess 'node-vm', warm pool ≤ 3 ms", m('W1', 'cordon-subprocess-node-vm'), 3, '≤', ms),
    target(
      'W1-subprocess-spawn',
      "W1: cordon subprocess 'node-vm', warm pool ≥ 25× faster than a Node child spawned per run",
      ratio(m('W1', 'raw-node-spawn'), m('W1', 'cordon-subprocess-node-vm')),
      25,
      '≥',
    ),
  ]
  for (const [id, name] of [
    ['cordon-quickjs', 'QuickJS'],
    ['cordon-ivm', 'ivm'],
    ['cordon-subprocess', 'subprocess'],
  ]) {
    list.push(
      target(
        `W1-peer-${id}`,
        `W1: cordon ${name} ≥ 20× faster than @sebastianwessel/quickjs`,
        ratio(m('W1', 'peer-sebastianwessel'), m('W1', id)),
        20,
        '≥',
      ),
    )
  }
  list.push(
    target(
      'W2-quickjs',
      'W2 per call: cordon QuickJS ≤ 1.5× its raw promise bridge',
      ratio(m('W2', 'cordon-quickjs'), m('W2', 'raw-quickjs')),
      1.5,
      '≤',
    ),
    target(
      'W2-ivm',
      'W2 per call: cordon ivm ≤ 1.0× a raw Reference call with a promise result',
      ratio(m('W2', 'cordon-ivm'), m('W2', 'raw-ivm')),
      1.0,
      '≤',
    ),
    target(
      'W2-subprocess',
      'W2 per call: cordon subprocess (engine children) ≤ 1.5× a raw warm child, one IPC round trip per call',
      ratio(m('W2', 'cordon-subprocess'), m('W2', 'raw-node-warm')),
      1.5,
      '≤',
    ),
    // The raw warm child has one thread at each end; an isolate in a child adds the isolate's own
    // thread at the far end, so each call wakes four threads instead of two. This is that floor.
    target(
      'W2-subprocess-same-hops',
      'W2 per call: cordon subprocess (engine children) ≤ 1.5× raw isolated-vm in a warm child (the same hops)',
      ratio(m('W2', 'cordon-subprocess'), m('W2', 'raw-ivm-child')),
      1.5,
      '≤',
    ),
  )
  const raws = [
    ['cordon-quickjs', 'raw-quickjs', 'QuickJS'],
    ['cordon-ivm', 'raw-ivm', 'ivm'],
    ['cordon-subprocess', 'raw-node-warm', 'subprocess'],
  ]
  for (const w of ['W3', 'W4', 'W5']) {
    for (const [id, rawId, name] of raws) {
      const how = w === 'W3' ? 'the raw engine' : "the raw engine's best method"
      list.push(target(`${w}-${id}`, `${w}: cordon ${name} within 1.2× ${how}`, ratio(m(w, id), m(w, rawId)), 1.2, '≤'))
    }
  }
  // The data path (issue 24): big values and logs within 2× of the raw engine's best method, in
  // every mode; a tool call within 1.5× of the raw engine's call in-thread.
  for (const w of ['W4', 'W5']) {
    for (const [id, rawId, name] of [...raws, ['cordon-quickjs-inline', 'raw-quickjs', "QuickJS (thread: 'inline')"]]) {
      list.push(target(`${w}-data-${id}`, `${w}: cordon ${name} ≤ 2× the raw engine's best method`, ratio(m(w, id), m(w, rawId)), 2, '≤'))
    }
  }
  list.push(
    target(
      'W2-data-quickjs-inline',
      "W2 per call: cordon QuickJS (thread: 'inline') ≤ 1.5× its raw promise bridge",
      ratio(m('W2', 'cordon-quickjs-inline'), m('W2', 'raw-quickjs')),
      1.5,
      '≤',
    ),
    // The default worker mode against raw QuickJS over the same channel: a worker thread, one
    // postMessage each way per call. Against the in-thread floor above, the hops count too.
    target(
      'W2-data-quickjs-worker',
      'W2 per call: cordon QuickJS (workers) ≤ 1.5× a raw QuickJS worker round trip',
      ratio(m('W2', 'cordon-quickjs'), m('W2', 'raw-quickjs-worker')),
      1.5,
      '≤',
    ),
  )
  for (const w of ['W4', 'W5']) {
    list.push(
      target(
        `${w}-data-subprocess-same-hops`,
        `${w}: cordon subprocess (engine children) ≤ 2× raw isolated-vm in a warm child (its best method, the same hops)`,
        ratio(m(w, 'cordon-subprocess'), m(w, 'raw-ivm-child')),
        2,
        '≤',
      ),
      target(
        `${w}-data-quickjs-worker`,
        `${w}: cordon QuickJS (workers) ≤ 2× raw QuickJS in a worker thread (its best method)`,
        ratio(m(w, 'cordon-quickjs'), m(w, 'raw-quickjs-worker')),
        2,
        '≤',
      ),
    )
  }
  for (const row of results.rss.filter((r) => r.contenderId.startsWith('cordon-'))) {
    const value = row.status === 'ok' ? row.growthMbPer1000 : undefined
    list.push(
      target(
        `rss-${row.contenderId}`,
        `RSS: ${row.contender} grows ≤ 5 MB per 1,000 W1 runs (${row.runs ?? 0} runs measured)`,
        value,
        5,
        '≤',
        (v) => `${v.toFixed(2)} MB`,
      ),
    )
  }
  // QuickJS in worker threads against the in-thread mode it replaced as the default, and what a
  // spinning guest does to the host.
  const preempted = results.preemption.find((r) => r.contenderId === 'cordon-quickjs' && r.status === 'ok')
  const throughput = (id) => results.throughput.find((r) => r.contenderId === id && r.status === 'ok')?.runsPerSecond
  list.push(
    target(
      'W1-quickjs-worker',
      'W1: QuickJS in workers ≤ 1.3× in-thread',
      ratio(m('W1', 'cordon-quickjs'), m('W1', 'cordon-quickjs-inline')),
      1.3,
      '≤',
    ),
    target(
      'W6-quickjs-worker',
      'W6: QuickJS in workers ≥ 1.7× in-thread (8 in flight)',
      ratio(throughput('cordon-quickjs'), throughput('cordon-quickjs-inline')),
      1.7,
      '≥',
    ),
    target(
      'W2-quickjs-worker',
      'W2 per call: QuickJS in workers ≤ 2× in-thread',
      ratio(m('W2', 'cordon-quickjs'), m('W2', 'cordon-quickjs-inline')),
      2,
      '≤',
    ),
    target('stall-quickjs', 'QuickJS: host event-loop stall while a guest spins ≤ 20 ms', preempted?.stallMs, 20, '≤', ms),
    target('abort-quickjs', 'QuickJS: abort of a spinning guest → ABORTED ≤ 50 ms', preempted?.abortMs, 50, '≤', ms),
    target(
      'native-deadline-quickjs',
      'QuickJS: a 500 ms deadline over long native calls ends by 600 ms',
      preempted?.nativeDeadlineMs,
      600,
      '≤',
      ms,
    ),
  )
  // Engine children (issue 19): the default on Node, under a server's load.
  const load = (id) => results.serverLoad?.find((r) => r.contenderId === id && r.status === 'ok')
  const children = load('cordon-subprocess')
  list.push(
    target(
      'W7-subprocess',
      'W7: cordon subprocess (engine children) ≥ 100 runs/s',
      children?.toolRunsPerSecond,
      100,
      '≥',
      (v) => `${v.toFixed(0)} runs/s`,
    ),
    target(
      'W7-subprocess-vs-ivm',
      'W7: cordon ivm in the host ≤ 1.5× the runs/s of cordon subprocess (engine children)',
      ratio(load('cordon-ivm')?.toolRunsPerSecond, children?.toolRunsPerSecond),
      1.5,
      '≤',
    ),
    target('W1-idle-subprocess', 'W1 after 500 ms idle: cordon subprocess (engine children) ≤ 1.5 ms', children?.idleW1Ms, 1.5, '≤', ms),
    target('W1-paced-subprocess', 'W1 at 15 ms spacing: cordon subprocess (engine children) ≤ 1.5 ms', children?.pacedW1Ms, 1.5, '≤', ms),
    target(
      'W6-subprocess-node-vm',
      "W6: cordon subprocess 'node-vm' (a child per run) ≥ 40 runs/s (1.6× the 25 before engine children)",
      throughput('cordon-subprocess-node-vm'),
      40,
      '≥',
      (v) => `${v.toFixed(0)} runs/s`,
    ),
    // Each run starts a Node process: the raw spawn is the floor that target is measured against.
    target(
      'W6-subprocess-node-vm-floor',
      "W6: cordon subprocess 'node-vm' ≥ 1.0× the runs/s of a raw Node child spawned per run",
      ratio(throughput('cordon-subprocess-node-vm'), throughput('raw-node-spawn')),
      1.0,
      '≥',
    ),
  )
  // The remote backend (issue 20): through HAProxy in front of three servers, against the same
  // engine in this process. Added time, not ratios: the network's cost is a constant per hop.
  const perCallUs = (id) => (m('W2', id) === undefined ? undefined : (m('W2', id) * 1000) / TOOL_CALLS)
  const more = (a, b) => (a === undefined || b === undefined ? undefined : a - b)
  list.push(
    target(
      'W1-remote-fleet',
      'W1: cordon remote through HAProxy ≤ cordon subprocess + 1.5 ms',
      more(m('W1', 'cordon-remote-fleet'), m('W1', 'cordon-subprocess')),
      1.5,
      '≤',
      (v) => `+${v.toFixed(2)} ms`,
    ),
    target(
      'W2-remote-fleet',
      'W2 per call: cordon remote through HAProxy ≤ cordon subprocess + 150 µs',
      more(perCallUs('cordon-remote-fleet'), perCallUs('cordon-subprocess')),
      150,
      '≤',
      (v) => `+${v.toFixed(0)} µs`,
    ),
    target(
      'W6-remote-fleet',
      'W6: 3 cordon-servers behind HAProxy (same 2 cores) ≥ 0.8× the runs/s of one cordon subprocess',
      ratio(throughput('cordon-remote-fleet'), throughput('cordon-subprocess')),
      0.8,
      '≥',
    ),
  )
  // First contact (issue "first contact"): a fresh process's first result against the peer
  // `run`, and the CLI's whole life against Node's own start.
  const cold = (id, field) => results.cold?.find((r) => r.contenderId === id && r.status === 'ok')?.[field]
  list.push(
    target(
      'cold-quickjs',
      'Cold: cordon QuickJS, fresh process → first result ≤ 0.5× `run`',
      ratio(cold('cordon-quickjs-cold', 'firstMedian'), cold('peer-run-cold', 'firstMedian')),
      0.5,
      '≤',
    ),
    target(
      'cold-select',
      'Cold: @cordon/select (plain `node`), fresh process → first result ≤ 0.5× `run`',
      ratio(cold('cordon-select-cold', 'firstMedian'), cold('peer-run-cold', 'firstMedian')),
      0.5,
      '≤',
    ),
    target(
      'cold-cli',
      "Cold: `cordon run -e '1 + 2'` to exit ≤ 2× `node -p '1 + 2'` to exit",
      ratio(cold('cordon-cli-cold', 'exitMedian'), cold('node-p', 'exitMedian')),
      2,
      '≤',
    ),
    target(
      'cold-cli-daemon',
      "Cold: `cordon run -e '1 + 2'` with `cordon daemon` running, to exit ≤ 2× `node -p '1 + 2'` to exit",
      ratio(cold('cordon-cli-daemon', 'exitMedian'), cold('node-p', 'exitMedian')),
      2,
      '≤',
    ),
  )
  // Back to back against spaced: a pool that cannot keep up shows here, not in W1.
  for (const [id, name] of [
    ['cordon-quickjs', 'QuickJS'],
    ['cordon-ivm', 'ivm'],
    ['cordon-subprocess', 'subprocess'],
  ]) {
    list.push(target(`W1b-${id}`, `W1b: cordon ${name} back to back ≤ 1.3× its spaced W1`, ratio(m('W1b', id), m('W1', id)), 1.3, '≤'))
  }
  list.push({
    upperBound: true,
    ...target(
      'normalization',
      'Normalization ≤ 10% of a cordon QuickJS W1 run (bounded above by all of @cordon/core around a run: no-op backend)',
      ratio(m('W1', 'core-only'), m('W1', 'cordon-quickjs')),
      0.1,
      '≤',
      (v) => `${(v * 100).toFixed(1)}%`,
    ),
  })
  return list
}

/** W2's median per tool call in microseconds. */
export const perCallUs = (medianMs) => (medianMs * 1000) / TOOL_CALLS
