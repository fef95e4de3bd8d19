import type { Sandbox, SandboxDefaults } from '@cordon/core'
import type { CapabilityRequirement, SandboxBackend } from '@cordon/core/backend'

/** Makes the backend under test, once per group and once per check that needs its own sandbox. */
export type { BackendFactory, CapabilityRequirement } from '@cordon/core/backend'

export const CONFORMANCE_GROUPS = [
  'values',
  'errors',
  'normalization',
  'logs',
  'tools',
  'limits',
  'isolation',
  'concurrency',
  'lifecycle',
  'capabilities',
  'sessions',
  'attacks',
  'dos',
  'poisoning',
  'preemption',
  'events',
  'fetch',
  'durable',
  'modules',
  'admission',
  'traces',
  'inspector',
] as const

export type ConformanceGroup = (typeof CONFORMANCE_GROUPS)[number]

/**
 * The groups whose checks measure the host's own responsiveness in milliseconds (the gaps of a
 * 5 ms interval while a guest spins, how soon an abort or dispose lands, runs beside a spin):
 * register them in a test file of their own and run it with nothing else on the machine.
 */
export const QUIET_GROUPS = ['preemption'] as const satisfies readonly ConformanceGroup[]

/**
 * Every other group. Their deadline checks allow the slack plus the CPU contention seen while
 * each run was measured (Linux pressure stall information), so they hold on a shared machine
 * and can run beside other suites.
 */
export const SHARED_GROUPS: readonly ConformanceGroup[] = CONFORMANCE_GROUPS.filter(
  (group) => !(QUIET_GROUPS as readonly ConformanceGroup[]).includes(group),
)

export interface ConformanceOptions {
  /** The groups `describeBackendConformance` registers. Default: all of them. */
  groups?: readonly ConformanceGroup[]
  /** How late a TIMEOUT or ABORTED result may arrive after its deadline. Default 500 ms. */
  timeoutSlackMs?: number
  /** Sequential runs of the lifecycle leak check. Default 1000. */
  lifecycleRuns?: number
  /** Sessions opened, used twice and disposed by the sessions leak check. Default 500. */
  sessionChurn?: number
  /** Host heap and RSS growth allowed over the lifecycle runs. Default 40 MB. */
  lifecycleMemorySlackMb?: number
  /**
   * Sandbox defaults under every sandbox the suite makes, below a check's own: e.g.
   * `{ cpuProfile: true }` runs the checks with the inspector on. Default none.
   */
  sandboxDefaults?: SandboxDefaults
  /**
   * Checks this backend is known to fail, by name, with why: each is registered as a test that
   * must still fail (vitest's `it.fails`), its title saying why, so the gap is on record and the
   * suite says when it closes. A name that matches no registered check is an error. Default none.
   */
  knownGaps?: Readonly<Record<string, string>>
}

export type ResolvedConformanceOptions = Readonly<Required<ConformanceOptions>>

export interface CheckContext {
  /** A sandbox over `backend`, shared by the checks of one group. */
  readonly sandbox: Sandbox
  readonly backend: SandboxBackend
  readonly options: ResolvedConformanceOptions
  /**
   * A new sandbox over a new backend from the factory, for checks that need their own
   * defaults or dispose it. Disposed when the check ends.
   */
  newSandbox: (defaults?: SandboxDefaults) => Promise<Sandbox>
}

/** One conformance check: plain data, run by the vitest describers or by `runConformanceCheck`. */
export interface ConformanceCheck {
  readonly group: ConformanceGroup
  readonly name: string
  /** Capability values the check is written for; it is skipped on a backend declaring otherwise. */
  readonly requires?: CapabilityRequirement
  /** Upper bound for the whole check in ms (default 15 s). */
  readonly timeoutMs?: number | ((options: ResolvedConformanceOptions) => number)
  /** Throws when the backend does not conform. */
  run(ctx: CheckContext): void | Promise<void>
}

export type CheckOutcome =
  | { status: 'passed'; durationMs: number }
  | { status: 'failed'; durationMs: number; error: unknown }
  | { status: 'skipped'; durationMs: number; reason: string }
