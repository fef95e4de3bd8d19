import { unmetCapabilities, type BackendFactory } from '@cordon/core/backend'
import type { BackendCandidate } from './candidates.js'
import { cachedProbe } from './probe-cache.js'
import type { Probe } from './probe.js'
import type { CandidateReport } from './report.js'
import { describeProtection } from './protection.js'
import type { RuntimeFacts } from './runtime-facts.js'
import type { SelectionRequest } from './select-options.js'

export interface Evaluation {
  reports: CandidateReport[]
  chosen?: { candidate: BackendCandidate; probe: Probe }
  /** The first backendOptions refusal met on the way (host misuse). */
  misuse?: Error
  /** Each available candidate's factory, by name (for `diagnose({ measure: true })`). */
  factories: Map<string, BackendFactory>
}

/** Forced backend alone; else `prefer` in its order, then the ranking (strongest first). */
export function orderCandidates(request: SelectionRequest): BackendCandidate[] {
  const byRank = [...request.candidates].sort((a, b) => a.rank - b.rank)
  const first = request.forced ? [request.forced.name] : request.prefer
  const head = first.map((name) => byRank.find((c) => c.name === name)).filter((c): c is BackendCandidate => c !== undefined)
  return [...head, ...byRank.filter((c) => !head.includes(c))]
}

/**
 * Walks the candidates in order. `select` stops at the first that works and meets
 * `require` (a forced backend is the only one tried); `diagnose` probes every enabled one.
 */
export async function evaluate(request: SelectionRequest, facts: RuntimeFacts, mode: 'select' | 'diagnose'): Promise<Evaluation> {
  const evaluation: Evaluation = { reports: [], factories: new Map() }
  for (const candidate of orderCandidates(request)) {
    const base = { name: candidate.name, rank: candidate.rank, module: candidate.module }
    const disabledBy = request.disabled.get(candidate.name)
    if (disabledBy) {
      evaluation.reports.push({ ...base, available: false, status: 'disabled', reason: `removed by ${disabledBy}`, probeMs: 0 })
      continue
    }
    const outranked = evaluation.chosen !== undefined || (request.forced !== undefined && request.forced.name !== candidate.name)
    if (mode === 'select' && outranked) {
      const why = request.forced
        ? `${request.forced.source} asks for ${request.forced.name}`
        : `${evaluation.chosen!.candidate.name} was chosen first`
      evaluation.reports.push({ ...base, available: false, status: 'not-tried', reason: `not probed: ${why}`, probeMs: 0 })
      continue
    }
    const probe = await cachedProbe({
      candidate,
      options: request.backendOptions[candidate.name],
      facts,
      timeoutMs: request.probeTimeoutMs,
      fresh: request.fresh,
      keep: mode === 'select',
    })
    if (probe.misuse) {
      evaluation.misuse ??= probe.misuse
      // Selection throws it: a typo in backendOptions must not quietly pick a weaker backend.
      if (mode === 'select') return evaluation
    }
    const report: CandidateReport = {
      ...base,
      available: probe.status === 'available',
      status: probe.status,
      reason: probe.reason,
      ...(probe.fix !== undefined ? { fix: probe.fix } : {}),
      probeMs: probe.probeMs,
      ...(probe.capabilities ? { capabilities: probe.capabilities, protects: describeProtection(probe.capabilities, probe.engine) } : {}),
    }
    const unmet = probe.status === 'available' && probe.capabilities ? unmetCapabilities(probe.capabilities, request.require) : []
    if (probe.status === 'available' && !probe.capabilities && request.require) unmet.push('it declares no capabilities')
    if (unmet.length > 0) {
      report.status = 'lacks-capability'
      report.reason = `works here but does not meet options.require: ${unmet.join('; ')}`
    }
    evaluation.reports.push(report)
    if (probe.status === 'available' && probe.factory) evaluation.factories.set(candidate.name, probe.factory)
    if (report.status === 'available' && !outranked) evaluation.chosen = { candidate, probe }
    else probe.kept?.release()
  }
  return evaluation
}
