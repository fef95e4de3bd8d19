import { SandboxError, isSandboxError } from '../errors.js'
import { GUEST_FILENAME } from '../guest/runtime-source.js'
import type { ResolvedLimits } from '../limits.js'
import { normalizeCode, toUserPosition, type NormalizedProgram } from '../normalize/index.js'
import type { RunOptions } from '../options.js'
import type { RunError, RunResult, RunStats } from '../result.js'
import type { ExecuteOutcome, SandboxBackend } from '../backend/v1/sandbox-backend.js'
import { decodeValue, encodeValue, fitsUtf8, isLimitMarker, isUntaggedWire, utf8Length } from '../wire.js'
import { RunBridge } from './run-bridge.js'
import { RunPauses, type PauseSupport } from '../durable/run-pauses.js'
import { EventStream } from './event-stream.js'
import { BACKEND_STOP_GRACE_MS, RunStop, runEndedError } from '../backend/run-stop.js'
import { compileValidators } from '../tool-schema/schema-validator.js'
import { checkGlobalNames } from './check-options.js'
import type { ToolRegistry } from '../tools/tool-registry.js'
import { resolveFetchPolicy, type FetchPolicy } from '../fetch/fetch-options.js'
import { FETCH_DESCRIPTOR, FETCH_GLOBAL_NAMES, createRunFetch } from '../fetch/fetch-tool.js'
import type { DurablePlan } from '../durable/durable-plan.js'
import { pausedResult } from '../durable/paused-result.js'
import { toolsFingerprint } from '../durable/tools-fingerprint.js'
import type { LoadedModules } from '../modules/load-modules.js'
import { renameModuleFrames, type ModuleSpan } from '../modules/link-program.js'
import { linkRunModules } from '../modules/run-modules.js'
import { PROGRAM_POSITION, userStack } from './user-stack.js'
import { resolveInspectorPlan, type InspectorPlan } from '../inspector/inspector-options.js'
import { RunInspector } from '../inspector/run-inspector.js'
import { programSourceName } from '../inspector/program-source-name.js'
import { toUserProfile } from '../inspector/cpu-profile.js'

export interface RunPlan {
  backend: SandboxBackend
  code: string
  options: RunOptions
  limits: ResolvedLimits
  registry: ToolRegistry
  /** Whether memoryMb was set explicitly (defaults or run options), not only by the built-in default. */
  memoryExplicit: boolean
  startedAt: number
  startedPerf: number
  /** The run's partition: its option, else its sandbox's own. */
  partition: string
  /** Session runs: the session's execute instead of the backend's, and declarations that persist. */
  session?: {
    execute: SandboxBackend['execute']
    /** Called once the run is over: whether the backend ran it, and whether the host had to stop it. */
    ended(info: { executed: boolean; stopped: boolean }): void
    /** The session's engine was opened for an inspector (`SessionRequest.inspector`). */
    inspectable: boolean
  }
  /** Runs of a sandbox with `durable` keys: recorded (and, resumed, replayed) so they can pause. */
  durable?: DurablePlan
  /** The sources of `options.modules` when they were loaded before the run (a resume checks them first). */
  loadedModules?: LoadedModules
  /** The run span's trace context, when the run is traced: handed to the backend. */
  traceparent?: string
  /** Admission control turned the run away (BUSY, or ABORTED/TIMEOUT while it waited): it ends with this, unexecuted. */
  refused?: SandboxError
}

/** The longest a timer waits (2^31 - 1 ms, ~24.8 days): a suspended deadline. */
const SUSPENDED_DEADLINE_MS = 2 ** 31 - 1

const NOT_DURABLE = 'this sandbox has no durable keys: createSandbox(backend, { durable: { keys: [secret] } })'
const SESSION_CANNOT_PAUSE =
  'a session run cannot pause: its guest state lives in memory between runs and cannot be resumed elsewhere; use sandbox.run'

/** Host-misuse checks that must throw before anything runs. */
export async function prepareRun(plan: RunPlan): Promise<{
  globalsWire: string
  validators: Awaited<ReturnType<typeof compileValidators>>
  fetchPolicy: FetchPolicy | undefined
  inspector: InspectorPlan | undefined
}> {
  const globals = plan.options.globals
  const inspector = resolveInspectorPlan(plan.options.inspector, plan.options.cpuProfile, 'run options')
  const fetchPolicy = resolveFetchPolicy(plan.options.fetch, 'run options')
  if (fetchPolicy !== undefined) checkFetchNames(plan.registry, globals)
  let globalsWire = 'null'
  if (globals !== undefined) {
    checkGlobalNames(globals, plan.registry.roots)
    try {
      // Globals only have to fit in the guest's heap, which the engine enforces.
      globalsWire = encodeValue(globals, plan.limits.memoryMb * 1024 * 1024, 'globals')
    } catch (error) {
      const message = isLimitMarker(error)
        ? `globals are larger than the guest heap (memoryMb ${plan.limits.memoryMb})`
        : (error as Error).message
      throw new SandboxError('INVALID_OPTIONS', `globals: ${message}`)
    }
  }
  return { globalsWire, validators: await compileValidators(plan.registry.byName), fetchPolicy, inspector }
}

/** With `fetch`, the guest's fetch API names are taken: no tool namespace or global may use them. */
function checkFetchNames(registry: ToolRegistry, globals: Record<string, unknown> | undefined): void {
  for (const name of FETCH_GLOBAL_NAMES) {
    if (registry.roots.has(name) || (globals !== undefined && Object.hasOwn(globals, name))) {
      throw new SandboxError(
        'INVALID_OPTIONS',
        `"${name}" is the guest's fetch API when the run has the fetch option; rename the tool or global`,
      )
    }
  }
}

export async function executeRun(plan: RunPlan, prepared: Awaited<ReturnType<typeof prepareRun>>): Promise<RunResult> {
  const { backend, limits } = plan
  // A debugger's `suspendDeadline`: the host said this run may take as long as its person needs.
  const timeoutMs = prepared.inspector?.debugger?.suspendDeadline === true ? SUSPENDED_DEADLINE_MS : limits.timeoutMs
  const runStop = new RunStop(timeoutMs, plan.options.signal, plan.startedAt)
  const { onEvent } = plan.options
  const events =
    onEvent === undefined
      ? undefined
      : { stream: new EventStream(onEvent, plan.startedPerf), includeValues: plan.options.includeToolValuesInEvents === true }
  const runFetch = prepared.fetchPolicy && createRunFetch(prepared.fetchPolicy, plan.registry)
  const pauses: PauseSupport = plan.session
    ? { refused: SESSION_CANNOT_PAUSE }
    : plan.durable
      ? { ledger: plan.durable.ledger }
      : { refused: NOT_DURABLE }
  // Tools see the run's stop, except a pause: calls already running finish and are recorded.
  const toolStop = new AbortController()
  runStop.signal.addEventListener('abort', () => {
    if (runStop.reason?.code !== 'INTERRUPTED') toolStop.abort(runStop.signal.reason)
  })
  const stop = (error: SandboxError) => runStop.stop(error)
  const runPauses = new RunPauses(pauses, stop)
  const bridge = new RunBridge(
    runFetch?.registry ?? plan.registry,
    prepared.validators,
    limits,
    runStop.signal,
    stop,
    runPauses,
    toolStop.signal,
    events,
  )
  let executed = false
  let spans: ModuleSpan[] | undefined
  let inspector: RunInspector | undefined
  const finish = async (outcome: ExecuteOutcome, program?: NormalizedProgram): Promise<RunResult> => {
    const reason = runStop.reason
    const profile = inspector?.close('the run ended')
    plan.session?.ended({ executed, stopped: reason !== undefined })
    runStop.finish()
    runFetch?.close()
    let result: RunResult
    // A backend that did not stop the guest in time crashed; its pause cannot be trusted.
    const stoppedInTime = outcome.ok || outcome.error.code !== 'BACKEND_CRASHED'
    if (reason?.code === 'INTERRUPTED' && plan.durable !== undefined && runPauses.paused !== undefined && stoppedInTime) {
      await runPauses.toolsSettled(runStop.deadline)
      bridge.logs.closed = true
      const stopped = toResult(plan, outcome, reason, bridge, program, spans)
      result = await pausedResult(plan.durable, runPauses.paused, stopped, plan.startedPerf, toolsFingerprint(plan.registry))
    } else {
      // A resumed program that ended by itself (a value or a throw) before every recorded call diverged.
      const endedByItself = reason === undefined && (outcome.ok || outcome.error.code === 'RUNTIME_ERROR')
      const replayEnd = endedByItself ? plan.durable?.ledger.unfinishedReplay() : undefined
      bridge.logs.closed = true
      result = toResult(
        plan,
        replayEnd ? { ok: false, error: { code: replayEnd.code, message: replayEnd.message } } : outcome,
        reason,
        bridge,
        program,
        spans,
      )
    }
    if (profile !== undefined && program !== undefined && result.interrupted === undefined) {
      result.cpuProfile = toUserProfile(profile, program, GUEST_FILENAME, programSourceName(program))
    }
    if (!toolStop.signal.aborted) toolStop.abort(runEndedError())
    if (events !== undefined) {
      // Every call that had its tool-start gets its end before the result event, the last one.
      // The stop's words, also when the backend stopped the run itself (its deadline, a limit).
      const stoppedBy = reason?.message ?? (!result.ok && result.error.code !== 'RUNTIME_ERROR' ? result.error.message : undefined)
      bridge.endPendingCalls(stoppedBy ?? 'the run finished before the call answered')
      events.stream.close(result)
    }
    return result
  }

  if (plan.refused) {
    runStop.stop(plan.refused)
    return finish({ ok: false, error: { code: plan.refused.code, message: plan.refused.message } })
  }
  if (utf8Length(plan.code) > limits.maxCodeBytes) {
    return finish({
      ok: false,
      error: { code: 'CODE_LIMIT', message: `the code is larger than maxCodeBytes (${limits.maxCodeBytes} bytes)` },
    })
  }
  if (plan.options.signal?.aborted) runStop.stop(new SandboxError('ABORTED', 'the run was aborted before it started'))
  if (runStop.reason) return finish({ ok: false, error: { code: runStop.reason.code, message: runStop.reason.message } })
  const unsupported = unsupportedFeature(plan, prepared.inspector)
  if (unsupported) return finish({ ok: false, error: { code: 'UNSUPPORTED', message: unsupported } })

  const modules = plan.options.modules
  const normalized = await normalizeCode(plan.code, { persistTopLevel: plan.session !== undefined, imports: modules !== undefined })
  if (!normalized.ok) {
    const { message, line, column, name } = normalized.error
    return finish({ ok: false, error: { code: 'SYNTAX_ERROR', name, message, line, column } })
  }
  const program = normalized.program
  let script = program.script
  if (modules !== undefined) {
    const linked = await linkRunModules(program, {
      map: modules,
      loaded: plan.loadedModules,
      maxCodeBytes: limits.maxCodeBytes,
      signal: runStop.signal,
      durable: plan.durable,
    })
    // A stop while loaders ran (deadline, abort) wins over their error: finish reports the stop.
    if ('error' in linked) return finish({ ok: false, error: linked.error })
    script = linked.script
    spans = linked.spans
  }
  if (prepared.inspector !== undefined) {
    // The debugger shows the user's code through a source map (not with modules: their linking
    // moves the program).
    // Loaded here: only a debugged run needs the source-map codec.
    if (prepared.inspector.debugger !== undefined && modules === undefined) {
      const { withSourceMap } = await import('../inspector/program-source-map.js')
      script = await withSourceMap(script, program, plan.code, GUEST_FILENAME)
    }
    const firstLine = script.slice(0, script.search(/[\r\n]|$/))
    inspector = new RunInspector(prepared.inspector, runStop.signal, GUEST_FILENAME, firstLine.lastIndexOf('{') + 1)
    try {
      await inspector.listen()
    } catch (error) {
      const { code, message } = isSandboxError(error) ? error : new SandboxError('INTERNAL', String(error))
      return finish({ ok: false, error: { code, message } })
    }
  }
  const clock = plan.durable === undefined ? '' : `,"clock":${JSON.stringify(plan.durable.clock)}`
  const setup = `{"tools":${JSON.stringify(plan.registry.descriptors)},"limits":${JSON.stringify({
    maxOutputBytes: limits.maxOutputBytes,
    maxLogEntries: limits.maxLogEntries,
    maxLogBytes: limits.maxLogBytes,
  })}${plan.options.logArgs === true ? ',"logArgs":true' : ''},"globals":${prepared.globalsWire}${isUntaggedWire(prepared.globalsWire) ? ',"plainGlobals":true' : ''}${runFetch ? ',"fetch":true' : ''}${clock}}`

  const watchdog = runStop.watchdog()
  const execute = plan.session?.execute ?? ((request) => backend.execute(request))
  executed = true
  let outcome: ExecuteOutcome
  try {
    outcome = await Promise.race([
      execute({
        script,
        filename: GUEST_FILENAME,
        setup,
        // The backend hears of the reserved fetch tool too (a backend may refuse calls of unknown tools).
        tools: runFetch ? [...plan.registry.descriptors, FETCH_DESCRIPTOR] : plan.registry.descriptors,
        limits,
        deadline: runStop.deadline,
        signal: runStop.signal,
        host: bridge,
        partition: plan.partition,
        ...(plan.traceparent === undefined ? {} : { traceparent: plan.traceparent }),
        ...(inspector === undefined ? {} : { inspector }),
      }).catch((error: unknown): ExecuteOutcome => ({ ok: false, error: crashError(error) })),
      watchdog.promise.then((): ExecuteOutcome => ({
        ok: false,
        error: {
          code: 'BACKEND_CRASHED',
          message: `backend ${backend.name} did not stop the guest within ${BACKEND_STOP_GRACE_MS} ms of being told to`,
        },
      })),
    ])
  } finally {
    watchdog.cancel()
  }
  return finish(outcome, program)
}

function unsupportedFeature(plan: RunPlan, inspector: InspectorPlan | undefined): string | undefined {
  const caps = plan.backend.capabilities
  if (inspector !== undefined) {
    const asked = inspector.debugger === undefined ? 'cpuProfile' : 'inspector'
    if (caps.inspector !== true)
      return `backend ${plan.backend.name} has no inspector (capabilities.inspector is false): ${asked} cannot work there`
    if (plan.session !== undefined && !plan.session.inspectable) {
      return `${asked} needs a session opened for it: createSession({ inspector }) or createSession({ cpuProfile }) makes its engine inspectable`
    }
  }
  if (plan.registry.hasSync && !caps.syncHostCalls) {
    return `backend ${plan.backend.name} cannot run sync tools (capabilities.syncHostCalls is false); drop sync: true`
  }
  if (plan.memoryExplicit && !caps.memoryLimit) {
    return `backend ${plan.backend.name} cannot enforce memoryMb (capabilities.memoryLimit is false)`
  }
  return undefined
}

function crashError(error: unknown): RunError {
  if (isSandboxError(error)) return { code: error.code, message: error.message }
  return { code: 'BACKEND_CRASHED', message: `the backend failed: ${error instanceof Error ? error.message : String(error)}` }
}

function toResult(
  plan: RunPlan,
  outcome: ExecuteOutcome,
  reason: SandboxError | undefined,
  bridge: RunBridge,
  program: NormalizedProgram | undefined,
  spans: readonly ModuleSpan[] | undefined,
): RunResult {
  const stats: RunStats = {
    backend: plan.backend.name,
    wallMs: round(performance.now() - plan.startedPerf),
    toolCalls: Math.min(bridge.toolCalls, plan.limits.maxToolCalls + 1),
    logsDropped: bridge.logs.dropped + nonNegative(outcome.stats?.logsDropped),
  }
  if (typeof outcome.stats?.cpuMs === 'number') stats.cpuMs = round(outcome.stats.cpuMs)
  if (typeof outcome.stats?.heapBytes === 'number') stats.heapBytes = outcome.stats.heapBytes
  if (typeof outcome.stats?.runId === 'string') stats.runId = outcome.stats.runId
  const logs = bridge.logs.entries
  const fail = (error: RunError): RunResult => ({ ok: false, error, logs, stats })

  // A value the guest finished before any stop wins; otherwise the stop reason explains the end.
  if (outcome.ok && reason === undefined) {
    if (typeof outcome.value !== 'string') return fail({ code: 'BACKEND_CRASHED', message: 'the backend returned a malformed value' })
    if (!fitsUtf8(outcome.value, plan.limits.maxOutputBytes)) {
      return fail(
        limitError(
          'OUTPUT_LIMIT',
          `the result is larger than maxOutputBytes (${plan.limits.maxOutputBytes} bytes)`,
          'maxOutputBytes',
          plan.limits.maxOutputBytes,
        ),
      )
    }
    try {
      return { ok: true, value: decodeValue(outcome.value), logs, stats }
    } catch {
      return fail({ code: 'BACKEND_CRASHED', message: 'the backend returned a malformed value' })
    }
  }
  // The host stopped the run (deadline, abort, a limit it enforces): that is why it ended,
  // whatever the guest did afterwards (e.g. caught the tool-call-limit error and returned).
  if (reason !== undefined) return fail(withLimit(plan, { code: reason.code, message: reason.message }))
  if (outcome.ok) return fail({ code: 'INTERNAL', message: 'unreachable' })
  return fail(withLimit(plan, mapPosition(sanitize(outcome.error), program, spans)))
}

function limitError(code: RunError['code'], message: string, name: string, value: number): RunError {
  return { code, message, limit: { name, value } }
}

const LIMIT_OF: Partial<Record<RunError['code'], keyof ResolvedLimits>> = {
  TIMEOUT: 'timeoutMs',
  MEMORY_LIMIT: 'memoryMb',
  OUTPUT_LIMIT: 'maxOutputBytes',
  TOOL_CALL_LIMIT: 'maxToolCalls',
  CODE_LIMIT: 'maxCodeBytes',
}

function withLimit(plan: RunPlan, error: RunError): RunError {
  const name = LIMIT_OF[error.code]
  if (name !== undefined && error.limit === undefined) error.limit = { name, value: plan.limits[name] }
  return error
}

/** A backend's error is data from a possibly-compromised engine: keep only well-typed fields. */
function sanitize(error: RunError): RunError {
  const out: RunError = {
    code: typeof error?.code === 'string' ? error.code : 'INTERNAL',
    message: typeof error?.message === 'string' ? error.message : 'unknown error',
  }
  if (typeof error?.name === 'string') out.name = error.name
  if (typeof error?.stack === 'string') out.stack = error.stack
  if (Number.isInteger(error?.line)) out.line = error.line
  if (Number.isInteger(error?.column)) out.column = error.column
  return out
}

/**
 * Positions from the engine are in script coordinates; report the user's own line and column.
 * With modules, frames in a module are renamed after it, and the position reported is that of
 * the first frame in the program (the program's line that led to the error). The stack itself
 * shows the user's code (user-stack.ts).
 */
function mapPosition(error: RunError, program: NormalizedProgram | undefined, spans?: readonly ModuleSpan[]): RunError {
  if (program === undefined) return error
  let line = error.line
  let column = error.column
  if (line === undefined && error.stack !== undefined && (error.code === 'RUNTIME_ERROR' || error.code === 'SYNTAX_ERROR')) {
    const match = spans === undefined ? PROGRAM_POSITION.exec(error.stack) : firstProgramFrame(error.stack, program)
    if (match) {
      line = Number(match[1])
      column = match[2] === undefined ? undefined : Number(match[2])
    }
  }
  if (spans !== undefined && error.stack !== undefined) error.stack = renameModuleFrames(error.stack, spans)
  if (error.stack !== undefined && error.code === 'RUNTIME_ERROR') error.stack = userStack(error.stack, error.name, error.message, program)
  delete error.line
  delete error.column
  if (line === undefined) return error
  const mapped = toUserPosition(program, line, column)
  if (mapped !== undefined) {
    error.line = mapped.line
    if (mapped.column !== undefined) error.column = mapped.column
  }
  return error
}

const STACK_POSITIONS = new RegExp(PROGRAM_POSITION.source, 'g')

function firstProgramFrame(stack: string, program: NormalizedProgram): RegExpExecArray | undefined {
  for (const match of stack.matchAll(STACK_POSITIONS)) {
    if (toUserPosition(program, Number(match[1])) !== undefined) return match
  }
  return undefined
}

function nonNegative(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000
}
