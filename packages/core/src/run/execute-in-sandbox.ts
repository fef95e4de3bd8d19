import { SandboxError } from '../errors.js'
import type { RunResult } from '../result.js'
import type { RunAdmission } from '../admission/run-admission.js'
import { executeRun, type RunPlan, type prepareRun } from './run-program.js'

/** What a sandbox adds around each of its runs, sessions' runs included. */
export interface SandboxRunHost {
  /** Present with `maxConcurrentRuns`: a run takes a place before it executes and gives it back after. */
  admission?: RunAdmission
}

/** Executes a prepared run under the sandbox's admission control. */
export async function executeInSandbox(
  plan: RunPlan,
  prepared: Awaited<ReturnType<typeof prepareRun>>,
  host: SandboxRunHost,
): Promise<RunResult> {
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
