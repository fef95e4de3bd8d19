import { createSandbox, isSandboxError, type BackendCapabilities, type RunResult, type Sandbox, type SandboxBackend } from '@cordon/core'
import type { BackendFactory } from '@cordon/core/backend'
import { importCandidate, type BackendCandidate } from './candidates.js'
import { errorCode, explainFailure, explainImportFailure, firstLine } from './explain.js'
import type { CandidateStatus } from './report.js'
import type { RuntimeFacts } from './runtime-facts.js'

/** What probing one candidate found. */
export interface Probe {
  status: Extract<CandidateStatus, 'available' | 'not-installed' | 'unusable' | 'broken'>
  reason: string
  fix?: string
  probeMs: number
  capabilities?: BackendCapabilities
  /** The factory, when the package loaded: the chosen backend is a fresh instance from it. */
  factory?: BackendFactory
  /** The factory refused `backendOptions`: host misuse, thrown by selection. */
  misuse?: Error
  /** What runs the guest, when the backend names it after a run (the subprocess backend's engine). */
  engine?: string
  /** A probe made for a selection keeps its working backend: the selection's backend, warm. */
  kept?: KeptBackend
}

/** The probed backend, left running: taken once, by the selection that chose it, or released. */
export interface KeptBackend {
  /** The backend, the first time; undefined after (later selections create their own). */
  take(): SandboxBackend | undefined
  /** The partition the probe ran in: a sandbox of the same one runs in the probe's engine process. */
  readonly partition: string
  /** Disposes it unless it was taken. */
  release(): void
}

/** A tiny program that needs a working engine, the tool bridge and the value codec. */
const PROBE_PROGRAM = 'const echoed = await probe.echo({ v: 1 })\nechoed.v + 1'
/** Numbers the probes' partitions. */
let probeCount = 0
/** Extra time a backend gets past the probe deadline before it counts as hung. */
const HANG_GRACE_MS = 1_000

interface ProbeInput {
  candidate: BackendCandidate
  options: object | undefined
  facts: RuntimeFacts
  timeoutMs: number
  /** Keep the backend when it works (see Probe.kept), instead of disposing it. */
  keep: boolean
  /** Run the probe program even where the backend shows it has run here before (provenHere). */
  fresh?: boolean
}

/** Imports, creates and test-runs one candidate; never throws. Disposes what it created, unless `keep` and it works (Probe.kept). */
export async function probeCandidate(input: ProbeInput): Promise<Probe> {
  const started = performance.now()
  const finish = (probe: Omit<Probe, 'probeMs'>): Probe => ({ ...probe, probeMs: Math.round(performance.now() - started) })
  const { candidate, facts } = input

  let exports: Record<string, unknown>
  try {
    exports = await withinDeadline(importCandidate(candidate), input.timeoutMs, `importing ${candidate.module}`)
  } catch (error) {
    const { notInstalled, ...explained } = explainImportFailure(candidate, error, facts)
    return finish({ status: notInstalled ? 'not-installed' : 'unusable', ...explained })
  }
  const factory = exports?.[candidate.factory]
  if (typeof factory !== 'function') {
    return finish({
      status: 'unusable',
      reason: `${candidate.module} does not export ${candidate.factory}() (a version that does not match @cordon/select?)`,
      fix: `install matching versions: ${candidate.install}@latest @cordon/select@latest`,
    })
  }

  let backend: SandboxBackend
  try {
    const made = (factory as BackendFactory)(input.options)
    backend = made instanceof Promise ? await withinDeadline(made, input.timeoutMs, `creating the ${candidate.name} backend`) : made
  } catch (error) {
    if (isSandboxError(error, 'INVALID_OPTIONS')) {
      return finish({
        status: 'unusable',
        reason: `backendOptions.${candidate.name} were refused: ${error.message}`,
        fix: `correct backendOptions.${candidate.name}`,
        misuse: error,
      })
    }
    return finish({ status: 'unusable', ...fromThrown(candidate, facts, error) })
  }
  const capabilities = readCapabilities(backend)
  if (capabilities instanceof Error) {
    await disposeBounded(() => backend.dispose())
    return finish({
      status: 'broken',
      reason: `its capabilities cannot be read: ${firstLine(capabilities)}`,
      fix: `report this as a bug in ${candidate.module}`,
    })
  }
  const loaded = { factory: factory as BackendFactory, ...(capabilities ? { capabilities } : {}) }
  return finish({ ...loaded, ...(await runProbe(candidate, backend, input)) })
}

async function runProbe(candidate: BackendCandidate, backend: SandboxBackend, input: ProbeInput): Promise<Omit<Probe, 'probeMs'>> {
  let sandbox: ReturnType<typeof createSandbox> | undefined
  let verdict: Omit<Probe, 'probeMs'>
  const partition = `select-probe-${++probeCount}`
  try {
    sandbox = createSandbox(backend, { partition })
    const proof = input.keep && input.fresh !== true ? provenHere(backend) : undefined
    if (proof !== undefined) {
      // A selection takes it as it is: its first run is the user's (the backend recovers from stale proof itself).
      backend.prepare?.()
      verdict = { status: 'available', reason: `not probed: ${proof}` }
    } else verdict = await runGuarded(candidate, sandbox, input)
    if (verdict.status === 'available') {
      const engine = await engineOf(backend)
      if (engine !== undefined) verdict = { ...verdict, reason: `${verdict.reason} (engine ${engine})`, engine }
    }
  } catch (error) {
    verdict = { status: 'unusable', ...fromThrown(candidate, input.facts, error) }
  }
  // Its engine, pool or first child is already up: the selection's first run needs not start its own.
  if (verdict.status === 'available' && input.keep) return { ...verdict, kept: keptBackend(backend, partition) }
  const disposeError = await disposeBounded(sandbox ? () => sandbox.dispose() : () => backend.dispose())
  if (disposeError !== undefined && verdict.status === 'available') {
    return {
      status: 'broken',
      reason: `dispose() failed after the probe: ${firstLine(disposeError)}`,
      fix: `report this as a bug in ${candidate.module}`,
    }
  }
  return verdict
}

/** The backend's own evidence that it has run programs here before (SandboxBackend.provenHere), or undefined. */
function provenHere(backend: SandboxBackend): string | undefined {
  try {
    const proof = typeof backend.provenHere === 'function' ? backend.provenHere() : undefined
    return typeof proof === 'string' && proof !== '' ? proof.slice(0, 300) : undefined
  } catch {
    return undefined
  }
}

/**
 * What runs the guest, for a backend that can say after its first run (the subprocess backend's
 * `diagnose().engine`, e.g. 'isolated-vm'), or undefined.
 */
async function engineOf(backend: SandboxBackend): Promise<string | undefined> {
  const diagnose = (backend as { diagnose?: unknown }).diagnose
  if (typeof diagnose !== 'function') return undefined
  try {
    const report = (await withinDeadline(Promise.resolve(diagnose.call(backend)), 2_000, 'diagnose()')) as { engine?: unknown } | null
    return typeof report?.engine === 'string' ? report.engine.slice(0, 40) : undefined
  } catch {
    return undefined
  }
}

/** Runs the probe program; a backend that ignores its own deadline counts as broken. */
async function runGuarded(candidate: BackendCandidate, sandbox: Sandbox, input: ProbeInput): Promise<Omit<Probe, 'probeMs'>> {
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  let calls = 0
  try {
    const hung = new Promise<'hung'>((resolve) => {
      timer = setTimeout(() => resolve('hung'), input.timeoutMs + HANG_GRACE_MS)
    })
    const run = sandbox.run(PROBE_PROGRAM, {
      timeoutMs: input.timeoutMs,
      signal: controller.signal,
      tools: { 'probe.echo': { execute: (args: unknown) => (calls++, args) } },
    })
    const result = await Promise.race([run, hung])
    if (result === 'hung') {
      return {
        status: 'broken',
        reason: `the probe did not finish within ${input.timeoutMs + HANG_GRACE_MS} ms: the backend ignored its deadline`,
        fix: `report this as a bug in ${candidate.module}`,
      }
    }
    return judge(candidate, input, result, calls)
  } finally {
    clearTimeout(timer)
    controller.abort(new Error('the probe is over'))
  }
}

function judge(candidate: BackendCandidate, input: ProbeInput, result: RunResult, calls: number): Omit<Probe, 'probeMs'> {
  if (result.ok) {
    if (result.value === 2 && calls === 1) {
      return { status: 'available', reason: `ran the probe program with a tool call on ${candidate.name}` }
    }
    return {
      status: 'broken',
      reason: `the probe program gave ${JSON.stringify(result.value)} after ${calls} tool call(s), expected 2 after 1`,
      fix: `report this as a bug in ${candidate.module}`,
    }
  }
  const { code, message } = result.error
  if (code === 'BACKEND_UNAVAILABLE') {
    return { status: 'unusable', ...explainFailure({ candidate, facts: input.facts, message }) }
  }
  return {
    status: 'broken',
    reason: `the probe program ended with ${code}: ${message}`,
    fix:
      code === 'TIMEOUT'
        ? `the machine may be overloaded or the engine slow to start: raise probeTimeoutMs (now ${input.timeoutMs})`
        : `report this as a bug in ${candidate.module}`,
  }
}

function fromThrown(candidate: BackendCandidate, facts: RuntimeFacts, error: unknown): { reason: string; fix: string } {
  const code = errorCode(error)
  const explained = explainFailure({ candidate, facts, message: firstLine(error), ...(code ? { code } : {}) })
  const ownFix = isSandboxError(error) ? error.fix : undefined
  return ownFix ? { reason: explained.reason, fix: ownFix } : explained
}

/** A plain copy of the manifest (the report must not alias the backend), or why it cannot be read. */
function readCapabilities(backend: SandboxBackend): BackendCapabilities | Error | undefined {
  try {
    const capabilities: unknown = backend.capabilities
    if (typeof capabilities !== 'object' || capabilities === null) return undefined
    return JSON.parse(JSON.stringify(capabilities)) as BackendCapabilities
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error))
  }
}

function keptBackend(backend: SandboxBackend, partition: string): KeptBackend {
  let held: SandboxBackend | undefined = backend
  return {
    partition,
    take() {
      const taken = held
      held = undefined
      return taken
    },
    release() {
      const left = held
      held = undefined
      if (left !== undefined) void disposeBounded(() => left.dispose())
    },
  }
}

/** Disposes, waiting at most HANG_GRACE_MS; resolves the error dispose() rejected with, if any. */
async function disposeBounded(dispose: () => Promise<void>): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    await Promise.race([dispose(), new Promise<void>((resolve) => (timer = setTimeout(resolve, HANG_GRACE_MS)))])
    return undefined
  } catch (error) {
    return error ?? new Error('dispose() rejected')
  } finally {
    clearTimeout(timer)
  }
}

/** Rejects if `promise` has not settled within `ms` (an import with a hung top-level await). */
async function withinDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}
