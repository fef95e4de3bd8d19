import { SandboxError } from './errors.js'
import { environmentLimits, resolveLimits, type Limits } from './limits.js'
import type { RunOptions, SandboxDefaults } from './options.js'
import type { RunResult } from './result.js'
import type { Sandbox } from './sandbox-types.js'
import type { SandboxBackend } from './backend/v1/sandbox-backend.js'
import { checkOptions, mergeRunOptions } from './run/check-options.js'
import { prepareRun, type RunPlan } from './run/run-program.js'
import { executeInSandbox, type SandboxRunHost } from './run/execute-in-sandbox.js'
import { resolveAdmission } from './admission/admission-options.js'
import { RunAdmission } from './admission/run-admission.js'
import { registerTools } from './tools/tool-registry.js'
import { openSession } from './session.js'
import type { Session, SessionOptions } from './session-types.js'
import { resolveDurableOptions } from './durable/durable-options.js'
import { firstRunPlan } from './durable/durable-plan.js'
import { checkResumeOptions, prepareResume } from './durable/prepare-resume.js'
import type { ResumeOptions } from './durable/resume-options.js'
import { DEFAULT_LIMITS } from './limits.js'
import { loadModules } from './modules/load-modules.js'
import { modulesHash } from './modules/modules-hash.js'

/**
 * Wraps a backend in the user API. Limits resolve as: built-in defaults < CORDON_*
 * environment variables (read once, here) < `defaults` < each run's options.
 * The sandbox owns the backend: `dispose()` disposes it.
 */
/** Numbers each sandbox's default partition. */
let sandboxCount = 0

export function createSandbox(backend: SandboxBackend, sandboxDefaults: SandboxDefaults = {}): Sandbox {
  checkBackend(backend)
  const ownPartition = `sandbox-${++sandboxCount}`
  const envLimits = environmentLimits()
  const { durable: durableOption, maxConcurrentRuns, maxQueueMs, ...defaults } = sandboxDefaults
  const durable = resolveDurableOptions(durableOption)
  const admission = resolveAdmission({ maxConcurrentRuns, maxQueueMs })
  const runHost: SandboxRunHost = { admission: admission && new RunAdmission(admission) }
  const defaultLimits = checkOptions(defaults, 'createSandbox defaults', false)
  registerTools(defaults.tools)
  const active = new Set<AbortController>()
  const sessions = new Map<string, Session>()
  let sessionSeq = 0
  let disposed = false

  async function run<T>(code: string, options: RunOptions = {}): Promise<RunResult<T>> {
    const startedAt = Date.now()
    const startedPerf = performance.now()
    if (disposed) throw new SandboxError('DISPOSED', 'this sandbox was disposed; create a new one')
    prepareBackend(backend)
    if (typeof code !== 'string') throw new SandboxError('INVALID_OPTIONS', `code must be a string, got ${typeof code}`)
    const runLimits: Partial<Limits> = checkOptions(options, 'run options', true)
    const merged = mergeRunOptions(defaults, options)
    const registry = registerTools(merged.tools)
    const limits = resolveLimits(envLimits, defaultLimits, runLimits)
    const disposal = new AbortController()
    // AbortSignal.any only when the caller gave a signal: it costs ~60 µs per run.
    const signal = options.signal ? AbortSignal.any([disposal.signal, options.signal]) : disposal.signal
    const plan = {
      backend,
      code,
      options: { ...merged, signal },
      limits,
      registry,
      memoryExplicit: runLimits.memoryMb !== undefined || defaultLimits.memoryMb !== undefined || envLimits.memoryMb !== undefined,
      startedAt,
      startedPerf,
      partition: merged.partition ?? ownPartition,
      durable: durable && firstRunPlan(durable, limits, code, startedAt),
    }
    return (await prepareAndExecute(plan, disposal)) as RunResult<T>
  }

  /** Prepares and runs a plan; `disposal` aborts it if the sandbox is disposed meanwhile. */
  async function prepareAndExecute(plan: RunPlan, disposal: AbortController): Promise<RunResult> {
    const prepared = await prepareRun(plan)
    active.add(disposal)
    // Disposed while the run was being prepared: it ends ABORTED like the runs already in flight.
    if (disposed) disposal.abort(new Error('the sandbox was disposed'))
    try {
      return await executeInSandbox(plan, prepared, runHost)
    } finally {
      active.delete(disposal)
    }
  }

  async function resume<T>(continuation: string, options: ResumeOptions): Promise<RunResult<T>> {
    const startedAt = Date.now()
    const startedPerf = performance.now()
    if (disposed) throw new SandboxError('DISPOSED', 'this sandbox was disposed; create a new one')
    prepareBackend(backend)
    if (durable === undefined) {
      throw new SandboxError('INVALID_OPTIONS', 'resume needs durable keys: createSandbox(backend, { durable: { keys: [secret] } })')
    }
    const checked = checkResumeOptions(options)
    const { tools, signal: userSignal, onEvent, includeToolValuesInEvents, logArgs } = checked
    checkOptions(
      { signal: userSignal, onEvent, includeToolValuesInEvents, logArgs, globals: checked.globals, modules: checked.modules },
      'resume options',
      true,
    )
    const registry = registerTools(tools ?? defaults.tools)
    // Modules are loaded before the continuation is claimed: other modules refuse the resume.
    const modules = checked.modules ?? defaults.modules
    const loadedModules = modules && (await loadModules(modules, userSignal ?? new AbortController().signal))
    // Modules that failed to load end the run with that error; there is nothing to compare.
    const hash = loadedModules === undefined ? undefined : loadedModules.ok ? modulesHash(loadedModules.sources) : null
    const resumed = await prepareResume(continuation, checked, registry, durable, hash)
    const disposal = new AbortController()
    const plan = {
      backend,
      code: resumed.state.code,
      options: {
        tools: tools ?? defaults.tools,
        globals: checked.globals ?? defaults.globals,
        signal: userSignal ? AbortSignal.any([disposal.signal, userSignal]) : disposal.signal,
        onEvent: onEvent ?? defaults.onEvent,
        includeToolValuesInEvents: includeToolValuesInEvents ?? defaults.includeToolValuesInEvents,
        logArgs: logArgs ?? defaults.logArgs,
        modules,
        trace: defaults.trace,
      },
      loadedModules,
      limits: resumed.limits,
      registry,
      memoryExplicit: resumed.limits.memoryMb !== DEFAULT_LIMITS.memoryMb,
      startedAt,
      startedPerf,
      durable: resumed.durable,
      partition: defaults.partition ?? ownPartition,
    }
    return (await prepareAndExecute(plan, disposal)) as RunResult<T>
  }

  async function createSession(options: SessionOptions = {}): Promise<Session> {
    if (disposed) throw new SandboxError('DISPOSED', 'this sandbox was disposed; create a new one')
    prepareBackend(backend)
    if (typeof options !== 'object' || options === null || Array.isArray(options)) {
      throw new SandboxError('INVALID_OPTIONS', 'session options must be an object')
    }
    const id = options.id ?? `session-${++sessionSeq}`
    if (typeof id !== 'string' || id === '') throw new SandboxError('INVALID_OPTIONS', 'session options: id must be a non-empty string')
    if (sessions.has(id)) throw new SandboxError('INVALID_OPTIONS', `session options: a session with id "${id}" is already open`)
    const session = await openSession(
      {
        backend,
        envLimits,
        defaultLimits,
        defaults,
        partition: ownPartition,
        runHost,
        forget: (ended) => sessions.get(ended.id) === ended && sessions.delete(ended.id),
      },
      id,
      options,
    )
    // The sandbox may have been disposed while the engine was opening.
    if (disposed) {
      await session.dispose()
      throw new SandboxError('DISPOSED', 'this sandbox was disposed while the session was opening')
    }
    sessions.set(id, session)
    return session
  }

  async function disposeAll(): Promise<void> {
    await Promise.all([...sessions.values()].map((session) => session.dispose()))
  }

  return {
    backend,
    run,
    resume,
    createSession,
    sessions: () => [...sessions.values()].map((session) => session.info()),
    get sessionCount() {
      return sessions.size
    },
    disposeAll,
    async dispose() {
      if (disposed) return
      disposed = true
      for (const controller of active) controller.abort(new Error('the sandbox was disposed'))
      await disposeAll()
      await backend.dispose()
    },
  }
}

function checkBackend(backend: SandboxBackend): void {
  if (typeof backend !== 'object' || backend === null) {
    throw new SandboxError('INVALID_OPTIONS', 'createSandbox needs a backend, e.g. createQuickJSBackend()')
  }
  if (backend.specificationVersion !== 'v1') {
    throw new SandboxError(
      'INVALID_OPTIONS',
      `backend ${String(backend.name)} implements specification ${String(backend.specificationVersion)}; this @cordon/core supports v1`,
    )
  }
  if (typeof backend.execute !== 'function' || typeof backend.dispose !== 'function') {
    throw new SandboxError('INVALID_OPTIONS', `backend ${String(backend.name)} is missing execute() or dispose()`)
  }
  if (backend.prepare !== undefined && typeof backend.prepare !== 'function') {
    throw new SandboxError('INVALID_OPTIONS', `backend ${String(backend.name)} has a prepare that is not a function`)
  }
}

/** Lets the backend load while core checks and normalizes the program; what fails shows in the run. */
function prepareBackend(backend: SandboxBackend): void {
  try {
    backend.prepare?.()
  } catch {
    // The contract says it never throws; a backend that does fails its run instead, with a reason.
  }
}
