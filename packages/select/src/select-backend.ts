import { SandboxError, createSandbox as createCoreSandbox, type Sandbox, type SandboxBackend } from '@cordon/core'
import { checkBoolean, checkSelectOptions } from './check-select-options.js'
import { evaluate, type Evaluation } from './evaluate.js'
import { firstLine } from './explain.js'
import { measureCosts } from './measure-costs.js'
import type { Diagnosis } from './report.js'
import { currentRuntimeFacts, runtimeLabel, type RuntimeFacts } from './runtime-facts.js'
import type { CreateSandboxOptions, DiagnoseOptions, SelectOptions, SelectionRequest } from './select-options.js'

export interface Selection {
  /** A fresh backend instance, owned by the caller (dispose it, or hand it to createSandbox). */
  backend: SandboxBackend
  name: string
  report: Diagnosis
}

/** A selection, and the partition its probe ran in when the backend is the probed one. */
interface Chosen extends Selection {
  probePartition?: string
}

/**
 * Probes the candidates (strongest first, or as `backend`/`prefer`/CORDON_BACKEND say)
 * and returns a new instance of the first that works and meets `require`. Throws
 * INVALID_OPTIONS for bad options and BACKEND_UNAVAILABLE when nothing fits.
 */
export async function selectBackend(options?: SelectOptions): Promise<Selection> {
  const { backend, name, report } = await select(checkSelectOptions(options, 'selectBackend options'))
  return { backend, name, report }
}

/** The one-line entry point: a @cordon/core Sandbox on the strongest backend that works here. */
export async function createSandbox(options?: CreateSandboxOptions): Promise<Sandbox> {
  const request = checkSelectOptions(options, 'createSandbox options', ['defaults'])
  const { backend, probePartition } = await select(request)
  try {
    // In the probe's partition (unless the caller names one), the first run finds the probe's engine process up.
    const defaults = probePartition === undefined ? options?.defaults : { partition: probePartition, ...options?.defaults }
    return createCoreSandbox(backend, defaults)
  } catch (error) {
    await backend.dispose()
    throw error
  }
}

/**
 * Probes every candidate that is not disabled and explains each: available or not, why,
 * the fix, probe time and capabilities. Never throws for an unusable backend.
 */
export async function diagnose(options?: DiagnoseOptions): Promise<Diagnosis> {
  const request = checkSelectOptions(options, 'diagnose options', ['measure'])
  const measure = checkBoolean(options?.measure, 'options.measure')
  const facts = currentRuntimeFacts()
  const evaluation = await evaluate(request, facts, 'diagnose')
  if (measure) await measureAvailable(request, evaluation)
  return toDiagnosis(request, facts, evaluation)
}

/** Adds `costs` to every available candidate's report, one backend at a time (they would skew each other). */
async function measureAvailable(request: SelectionRequest, evaluation: Evaluation): Promise<void> {
  for (const report of evaluation.reports) {
    const factory = report.status === 'available' ? evaluation.factories.get(report.name) : undefined
    if (factory === undefined) continue
    const costs = await measureCosts(factory, request.backendOptions[report.name], request.probeTimeoutMs)
    if (typeof costs === 'string') report.costsError = costs
    else report.costs = costs
  }
}

async function select(request: SelectionRequest): Promise<Chosen> {
  const facts = currentRuntimeFacts()
  const evaluation = await evaluate(request, facts, 'select')
  if (evaluation.misuse) throw evaluation.misuse
  const report = toDiagnosis(request, facts, evaluation)
  const chosen = evaluation.chosen
  if (!chosen) throw unavailableError(request, facts, report)
  // The probed instance when this selection made the probe (it is warm); else a new one.
  const probed = chosen.probe.kept?.take()
  if (probed !== undefined) return { backend: probed, name: chosen.candidate.name, report, probePartition: chosen.probe.kept!.partition }
  let backend: SandboxBackend
  try {
    backend = await chosen.probe.factory!(request.backendOptions[chosen.candidate.name])
  } catch (error) {
    throw new SandboxError(
      'BACKEND_UNAVAILABLE',
      `${chosen.candidate.name} passed its probe but could not be created again: ${firstLine(error)}`,
      { cause: error },
    )
  }
  return { backend, name: chosen.candidate.name, report }
}

function toDiagnosis(request: SelectionRequest, facts: RuntimeFacts, evaluation: Evaluation): Diagnosis {
  const diagnosis: Diagnosis = { runtime: facts, candidates: evaluation.reports, summary: '' }
  const chosen = evaluation.chosen?.candidate.name
  if (chosen === undefined) {
    diagnosis.summary = request.forced
      ? `${request.forced.source} asks for ${request.forced.name}, which cannot be used here`
      : `no backend can be used on ${runtimeLabel(facts)}${request.require ? ' with the required capabilities' : ''}`
    return diagnosis
  }
  diagnosis.chosen = chosen
  const passedOver = evaluation.reports.filter(
    (r) => r.name !== chosen && r.status !== 'not-tried' && r.rank < evaluation.chosen!.candidate.rank,
  )
  const why = request.forced
    ? `${request.forced.source} asks for it`
    : request.prefer.includes(chosen)
      ? 'the first backend in options.prefer that can be used'
      : 'the strongest backend that can be used here'
  const over = passedOver.map((r) => `${r.name}: ${r.reason}`).join('; ')
  diagnosis.summary = `${chosen}: ${why}${over ? ` (passed over ${over})` : ''}`
  return diagnosis
}

function unavailableError(request: SelectionRequest, facts: RuntimeFacts, report: Diagnosis): SandboxError {
  if (request.forced) {
    const forced = report.candidates.find((c) => c.name === request.forced!.name)!
    const fix = forced.fix ?? (forced.status === 'lacks-capability' ? 'drop the requirement or ask for another backend' : undefined)
    return new SandboxError(
      'BACKEND_UNAVAILABLE',
      `${request.forced.source} asks for ${forced.name}, which cannot be used here: ${forced.reason}${fix ? `. Fix: ${fix}` : ''}`,
      fix ? { fix } : {},
    )
  }
  const considered = report.candidates.map((c) => `${c.name}: ${c.reason}${c.fix ? ` (fix: ${c.fix})` : ''}`)
  const fixes = report.candidates.filter((c) => c.fix).map((c) => `${c.name}: ${c.fix}`)
  return new SandboxError(
    'BACKEND_UNAVAILABLE',
    `${report.summary}. ${considered.join('; ')}`,
    fixes.length > 0 ? { fix: fixes.join('; ') } : {},
  )
}
