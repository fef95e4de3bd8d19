import { createSandbox } from '@cordon/core'
import type { Sandbox, SandboxDefaults } from '@cordon/core'
import { unmetCapabilities, type BackendCapabilities, type BackendFactory, type SandboxBackend } from '@cordon/core/backend'
import { CONFORMANCE_GROUPS } from './types.js'
import type { CheckContext, CheckOutcome, ConformanceCheck, ConformanceOptions, ResolvedConformanceOptions } from './types.js'

const DEFAULT_CHECK_TIMEOUT_MS = 15_000
const DISPOSE_BUDGET_MS = 5_000

export function resolveConformanceOptions(options: ConformanceOptions = {}): ResolvedConformanceOptions {
  return Object.freeze({
    groups: options.groups ?? CONFORMANCE_GROUPS,
    timeoutSlackMs: options.timeoutSlackMs ?? 500,
    lifecycleRuns: options.lifecycleRuns ?? 1000,
    sessionChurn: options.sessionChurn ?? 500,
    lifecycleMemorySlackMb: options.lifecycleMemorySlackMb ?? 40,
    sandboxDefaults: options.sandboxDefaults ?? {},
    knownGaps: options.knownGaps ?? {},
  })
}

export function checkTimeoutMs(check: ConformanceCheck, options: ResolvedConformanceOptions): number {
  const value = typeof check.timeoutMs === 'function' ? check.timeoutMs(options) : check.timeoutMs
  return value ?? DEFAULT_CHECK_TIMEOUT_MS
}

/** Why a check does not apply to a backend, or undefined when it does. */
export function skipReason(check: ConformanceCheck, capabilities: BackendCapabilities): string | undefined {
  const unmet = unmetCapabilities(capabilities, check.requires)
  return unmet.length === 0 ? undefined : `needs capabilities: ${unmet.join('; ')}`
}

/** The checks that apply to a backend with these capabilities (to register no skipped tests). */
export function applicableChecks(checks: readonly ConformanceCheck[], capabilities: BackendCapabilities): readonly ConformanceCheck[] {
  return checks.filter((check) => skipReason(check, capabilities) === undefined)
}

/** A backend and a sandbox over it, shared by the checks of one group. */
export interface GroupFixture {
  readonly backend: SandboxBackend
  readonly sandbox: Sandbox
  dispose(): Promise<void>
}

export async function createGroupFixture(factory: BackendFactory, defaults: SandboxDefaults = {}): Promise<GroupFixture> {
  const backend = await factory()
  const sandbox = createSandbox(backend, defaults)
  return { backend, sandbox, dispose: () => disposeWithin(sandbox, 'the group sandbox') }
}

/** How long the warm-up run of a group's backend may take before the checks start anyway. */
const WARM_UP_BUDGET_MS = 10_000

/**
 * One run on the fixture's sandbox before its group's checks: a new backend loads its engine,
 * starts its pools and workers on first use, and on a loaded 2-core machine that took longer than
 * the 200-300 ms deadlines of the first timing checks (a guest that had not started by then had
 * logged nothing). Those checks are about limits and logs, not about a cold start. Its outcome is
 * not checked here: a broken backend fails the checks themselves.
 */
export async function warmUp(fixture: GroupFixture): Promise<void> {
  try {
    await within(fixture.sandbox.run('1'), WARM_UP_BUDGET_MS, 'the warm-up run did not settle')
  } catch {
    // The checks will say what is wrong.
  }
}

/** Runs one check against a fixture, with the check's own time bound. Throws when it fails. */
export async function runCheckOn(
  check: ConformanceCheck,
  fixture: GroupFixture,
  factory: BackendFactory,
  options: ResolvedConformanceOptions,
): Promise<void> {
  const extra: Sandbox[] = []
  const ctx: CheckContext = {
    sandbox: fixture.sandbox,
    backend: fixture.backend,
    options,
    async newSandbox(defaults?: SandboxDefaults) {
      const sandbox = createSandbox(await factory(), { ...options.sandboxDefaults, ...defaults })
      extra.push(sandbox)
      return sandbox
    },
  }
  const limitMs = checkTimeoutMs(check, options)
  try {
    await within(
      Promise.resolve().then(() => check.run(ctx)),
      limitMs,
      `check "${check.name}" did not finish within ${limitMs} ms`,
    )
  } finally {
    await Promise.all(extra.map((sandbox) => disposeWithin(sandbox, 'a sandbox made by the check')))
  }
}

/**
 * Runs one check on a fresh backend and sandbox, outside any vitest test. Resolves its
 * outcome instead of throwing, so a suite can assert that a check fails for a broken backend.
 */
export async function runConformanceCheck(
  check: ConformanceCheck,
  factory: BackendFactory,
  options: ConformanceOptions = {},
): Promise<CheckOutcome> {
  const resolved = resolveConformanceOptions(options)
  const started = performance.now()
  const elapsed = () => performance.now() - started
  let fixture: GroupFixture | undefined
  try {
    fixture = await createGroupFixture(factory, resolved.sandboxDefaults)
    const reason = skipReason(check, fixture.backend.capabilities)
    if (reason !== undefined) return { status: 'skipped', durationMs: elapsed(), reason }
    await runCheckOn(check, fixture, factory, resolved)
    return { status: 'passed', durationMs: elapsed() }
  } catch (error) {
    return { status: 'failed', durationMs: elapsed(), error }
  } finally {
    await fixture?.dispose().catch(() => {
      // A dispose failure after a failed check adds nothing; after a passing one it is
      // reported by the lifecycle group, not here.
    })
  }
}

async function disposeWithin(sandbox: Sandbox, what: string): Promise<void> {
  await within(sandbox.dispose(), DISPOSE_BUDGET_MS, `dispose() of ${what} did not finish within ${DISPOSE_BUDGET_MS} ms`)
}

/** Settles like `promise`, or rejects with `message` after `ms`. The timer never outlives it. */
export function within<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms)
  })
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer))
}
