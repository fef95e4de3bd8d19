// The results as Markdown tables (for the console and the README).
import { preemptionTable } from './preemption-runner.mjs'
import { serverLoadTable } from './server-load-runner.mjs'
import { formatMs, formatRate } from './stats.mjs'
import { perCallUs } from './targets.mjs'
import { WORKLOADS } from './workloads.mjs'

/** Each engine's raw floor, for the "× raw" column: the same engine driven by hand. */
const RAW_FOR_ENGINE = { quickjs: 'raw-quickjs', ivm: 'raw-ivm', subprocess: 'raw-node-warm' }

const cell = (text) => String(text).replaceAll('|', '\\|')
const table = (head, rows) =>
  [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n')

function rawMedian(rows, engine) {
  const medians = rows.filter((r) => r.contenderId === RAW_FOR_ENGINE[engine] && r.status === 'ok').map((r) => r.median)
  return medians.length > 0 ? Math.min(...medians) : undefined
}

const statusCell = (r) => `${r.status}${r.reason ? `: ${r.reason}` : ''}`

/** `spacedRows`: for a back-to-back workload (W1b), the same contenders' spaced rows (W1). */
function latencyTable(workload, rows, spacedRows) {
  const perCall = workload.id === 'W2'
  const spaced = spacedRows !== undefined
  const head = [
    'contender',
    'method',
    'median ms',
    ...(perCall ? ['µs / call'] : []),
    'p95 ms',
    'runs/s',
    '× raw engine',
    ...(spaced ? [`× ${workload.spaced} (spaced)`] : []),
    'samples',
  ]
  const body = rows.map((r) => {
    if (r.status !== 'ok')
      return [r.contender, r.method ?? '', statusCell(r), ...(perCall ? [''] : []), '', '', '', ...(spaced ? [''] : []), '']
    const raw = rawMedian(rows, r.engine)
    const times = raw === undefined || r.contenderId === RAW_FOR_ENGINE[r.engine] ? '' : `${(r.median / raw).toFixed(2)}`
    const spacedRow = spacedRows?.find((s) => s.contenderId === r.contenderId && s.method === r.method && s.status === 'ok')
    return [
      r.contender,
      r.method ?? '',
      formatMs(r.median),
      ...(perCall ? [perCallUs(r.median).toFixed(1)] : []),
      formatMs(r.p95),
      formatRate(r.runsPerSecond),
      times,
      ...(spaced ? [spacedRow ? (r.median / spacedRow.median).toFixed(2) : ''] : []),
      String(r.n),
    ]
  })
  return `### ${workload.title}\n\n${table(head, body)}`
}

/** A fresh process per sample; the ratios are of the first result (median against median). */
function coldTable(rows) {
  const firstOf = (id) => rows.find((r) => r.contenderId === id && r.status === 'ok')?.firstMedian
  const versus = (r, id) => (firstOf(id) === undefined || r.contenderId === id ? '' : (r.firstMedian / firstOf(id)).toFixed(2))
  // The peer's name without its parenthesis: `run 2.1.5`.
  const runName = rows.find((r) => r.contenderId === 'peer-run-cold')?.contender.split(' (')[0] ?? 'run'
  const head = ['contender', 'median ms to first result', 'median ms to exit', `× \`${runName}\` (first result)`, '× `node -p`', 'samples']
  const body = rows.map((r) =>
    r.status === 'ok'
      ? [
          `${r.contender}${r.note ? `: ${r.note}` : ''}`,
          formatMs(r.firstMedian),
          formatMs(r.exitMedian),
          versus(r, 'peer-run-cold'),
          versus(r, 'node-p'),
          String(r.n),
        ]
      : [r.contender, statusCell(r), '', '', '', ''],
  )
  return `### Cold: a fresh process's first result\n\n${table(head, body)}`
}

function throughputTable(rows) {
  const body = rows.map((r) =>
    r.status === 'ok'
      ? [r.contender, formatRate(r.runsPerSecond), formatRate(r.overallRunsPerSecond), String(r.runs)]
      : [r.contender, statusCell(r), '', ''],
  )
  return `### ${WORKLOADS.find((w) => w.id === 'W6').title}\n\n${table(['contender', 'runs/s (median batch)', 'runs/s (all batches)', 'runs'], body)}`
}

function rssTable(rows) {
  const mb = (v) => v.toFixed(1)
  const body = rows.map((r) =>
    r.status === 'ok'
      ? [r.contender, String(r.runs), mb(r.rssBeforeMb), mb(r.rssAfterMb), r.growthMbPer1000.toFixed(2)]
      : [r.contender, statusCell(r), '', '', ''],
  )
  return `### RSS growth of the host process per 1,000 back-to-back W1 runs (slope through GC'd checkpoints)\n\n${table(['contender', 'runs', 'RSS before MB', 'RSS after MB', 'MB per 1,000 runs'], body)}`
}

function targetsTable(targets) {
  const verdict = (t) => {
    if (t.met === undefined) return 'not measured'
    if (t.met) return 'met'
    // A loose upper bound above the limit says nothing either way; the README has the profile.
    return t.upperBound ? 'bound too loose: see README' : '**missed**'
  }
  return `### Targets\n\n${table(
    ['target', 'measured', 'limit', 'verdict'],
    targets.map((t) => [t.text, t.shown, `${t.kind} ${t.limit}`, verdict(t)]),
  )}`
}

export function toMarkdown(results) {
  const { meta } = results
  const lines = [
    `Mode: ${meta.mode}. Node ${meta.node}, ${meta.cpus} × ${meta.cpuModel}, ${meta.platform}. ${meta.date}. Command: \`${meta.command}\`.`,
    '',
    ...WORKLOADS.filter((w) => results.latency[w.id]).map(
      (w) => `${latencyTable(w, results.latency[w.id], w.spaced ? (results.latency[w.spaced] ?? []) : undefined)}\n`,
    ),
    ...(results.cold.length > 0 ? [`${coldTable(results.cold)}\n`] : []),
    `${throughputTable(results.throughput)}\n`,
    `${serverLoadTable(results.serverLoad)}\n`,
    `${rssTable(results.rss)}\n`,
    `${preemptionTable(results.preemption)}\n`,
    targetsTable(results.targets),
  ]
  return lines.join('\n')
}
