import type { BackendCapabilities } from '@cordon/core'
import type { CandidateReport, CandidateStatus, Diagnosis } from '@cordon/select'
import type { Paint, Style } from './colors.js'
import { formatTable } from './format-table.js'

const STATUS_STYLE: Record<CandidateStatus, Style> = {
  available: 'green',
  'not-installed': 'yellow',
  unusable: 'red',
  broken: 'red',
  disabled: 'yellow',
  'lacks-capability': 'yellow',
  'not-tried': 'dim',
}

/**
 * `cordon doctor` for a person: the runtime, one row per backend (status, probe time,
 * capabilities) with its reason and fix beneath it, and the choice. Long reasons sit on
 * their own lines so the table stays narrow enough for a terminal.
 */
export function formatDiagnosis(report: Diagnosis, paint: Paint): string[] {
  const { runtime } = report
  const flags = [
    runtime.platform,
    runtime.nodeAbi && `ABI ${runtime.nodeAbi}`,
    runtime.kind === 'node' && (runtime.noNodeSnapshot ? 'with --no-node-snapshot' : 'without --no-node-snapshot'),
  ]
  const lines = [`${paint('bold', 'runtime:')} ${runtimeName(runtime.kind)} ${runtime.version} (${flags.filter(Boolean).join(', ')})`, '']

  const header = ['backend', 'status', 'probe ms', 'capabilities'].map((h) => paint('bold', h))
  const rows = report.candidates.map((c) => [
    c.name === report.chosen ? paint('bold', c.name) : c.name,
    paint(STATUS_STYLE[c.status], c.status),
    c.probeMs > 0 ? String(Math.round(c.probeMs)) : '-',
    c.capabilities ? formatCapabilities(c.capabilities) : '-',
  ])
  const table = formatTable([header, ...rows], ['left', 'left', 'right', 'left'])
  const indent = ' '.repeat(Math.max(...report.candidates.map((c) => c.name.length), 'backend'.length) + 2)
  lines.push(table[0]!)
  report.candidates.forEach((candidate, i) => {
    lines.push(table[i + 1]!)
    lines.push(...explanation(candidate, paint).map((text) => indent + text))
  })
  lines.push('', `${paint('bold', report.chosen ? 'chosen:' : 'none usable:')} ${report.summary}`)
  return lines
}

function explanation(candidate: CandidateReport, paint: Paint): string[] {
  const out = [paint('dim', candidate.reason)]
  if (candidate.fix) out.push(`${paint('cyan', 'fix:')} ${candidate.fix}`)
  if (candidate.available && candidate.protects) out.push(`${paint('cyan', 'protects:')} ${candidate.protects}`)
  const { costs } = candidate
  if (costs) {
    const figures = `first run ${formatMs(costs.firstRunMs)}, then ${formatMs(costs.runMs)} a run, ${costs.toolCallUs} µs a tool call`
    out.push(`${paint('cyan', 'costs:')} ${figures}`)
  } else if (candidate.costsError) out.push(`${paint('cyan', 'costs:')} not measured: ${candidate.costsError}`)
  return out
}

function formatMs(ms: number): string {
  return `${ms >= 10 ? Math.round(ms) : ms.toFixed(1)} ms`
}

/**
 * `process: memoryLimit survivesGuestOom …` — the isolation kind, then every yes; a backend that
 * runs guest code on the host's thread says so in words, since that is what a server owner must know.
 */
export function formatCapabilities(capabilities: BackendCapabilities): string {
  const yes = Object.entries(capabilities)
    .filter(([, value]) => value === true)
    .map(([key]) => key)
  const stalls = capabilities.preemptive ? '' : ' (can stall the host)'
  return `${capabilities.isolation}: ${yes.join(' ')}${stalls}`
}

function runtimeName(kind: Diagnosis['runtime']['kind']): string {
  return { node: 'Node', bun: 'Bun', deno: 'Deno', browser: 'a browser', other: 'unknown runtime' }[kind]
}
