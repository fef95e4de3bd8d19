import { SandboxError } from '../errors.js'
import type { RunResult } from '../result.js'
import type { RunAdmission } from '../admission/run-admission.js'
import { loadOtelApi } from '../trace/otel-api.js'
import { RunTrace } from '../trace/run-trace.js'
import { resolveTraceOptions } from '../trace/trace-options.js'
import { executeRun, type RunPlan, type prepareRun } from './run-program.js'

/** What a sandbox adds around each of its runs, sessions' runs included. */
export interface SandboxRunHost {
  /** Present with `maxConcurrentRuns`: a run takes a place before it executes and gives it back after. */
  admission?: RunAdmission
}

type Prepared = Awaited<ReturnType<typeof prepareRun>>

/** Executes a prepared run under the sandbox's admission control, traced when OpenTelemetry records. */
export async function executeInSandbox(plan: RunPlan, prepared: Prepared, host: SandboxRunHost): Promise<RunResult> {
  const trace = await startTrace(plan)
  if (trace === undefined) return admitAndExecute(plan, prepared, host)
  const { onEvent, includeToolValuesInEvents } = plan.options
  const traced: RunPlan = {
    ...plan,
    traceparent: trace.traceparent,
    options: {
      ...plan.options,
      onEvent: trace.listener(onEvent, includeToolValuesInEvents === true),
      includeToolValuesInEvents: includeToolValuesInEvents === true || trace.includeValues,
    },
  }
  let result: RunResult
  try {
    result = await admitAndExecute(traced, prepared, host)
  } catch (error) {
    trace.fail(error)
    throw error
  }
  trace.end(result)
  return result
}

async function startTrace(plan: RunPlan): Promise<RunTrace | undefined> {
  const options = resolveTraceOptions(plan.options.trace, 'run options')
  if (options === undefined) return undefined
  const api = await loadOtelApi()
  if (api === undefined) return undefined
  return RunTrace.start(api, options, {
    backend: plan.backend.name,
    code: plan.code,
    session: plan.session !== undefined,
    startedPerf: plan.startedPerf,
  })
}

async function admitAndExecute(plan: RunPlan, prepared: Prepared, host: SandboxRunHost): Promise<RunResult> {
  const { admission } = host
  if (admission === undefined) return executeRun(plan, prepared)
  const place = await admission.enter(plan.options.signal, plan.startedAt + plan.limits.timeoutMs, plan.limits.timeoutMs)
  // A refused run still resolves through executeRun, so its result and events look like any other's.
  if (SandboxError.isInstance(place)) return executeRun({ ...plan, refused: place }, prepared)
  try {
    return await executeRun(plan, prepared)
  } finally {
    place.release()
  }
}
