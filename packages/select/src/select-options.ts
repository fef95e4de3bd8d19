import type { SandboxDefaults } from '@cordon/core'
import type { CapabilityRequirement } from '@cordon/core/backend'
import type { BackendCandidate } from './candidates.js'

export interface SelectOptions {
  /** Use exactly this backend; fails with BACKEND_UNAVAILABLE if it does not work. Wins over CORDON_BACKEND. */
  backend?: string
  /** Names tried first, in this order, before the rest of the ranking. */
  prefer?: readonly string[]
  /** Names never tried (added to CORDON_DISABLE). */
  exclude?: readonly string[]
  /** Capabilities the chosen backend must have, e.g. `['survivesGuestOom']` or `{ isolation: 'process' }`. */
  require?: CapabilityRequirement
  /** Options for each backend's factory, by name: `{ ivm: { poolSize: 2 } }`. */
  backendOptions?: { readonly [name: string]: object | undefined }
  /** Deadline of each probe in milliseconds (default 5,000). */
  probeTimeoutMs?: number
  /** Probe again instead of reusing this process's earlier probe results. */
  fresh?: boolean
  /** Advanced: where CORDON_BACKEND and CORDON_DISABLE are read (default `process.env`). */
  env?: { readonly [name: string]: string | undefined }
  /** Advanced: the backends to consider instead of the three built-ins. */
  candidates?: readonly BackendCandidate[]
}

export interface DiagnoseOptions extends SelectOptions {
  /**
   * Also measure what each available backend costs here (`costs` in its report): a fresh instance
   * runs a few small programs, about a second per backend. Default false.
   */
  measure?: boolean
}

export interface CreateSandboxOptions extends SelectOptions {
  /** Defaults for every run, passed to @cordon/core's createSandbox. */
  defaults?: SandboxDefaults
}

export const DEFAULT_PROBE_TIMEOUT_MS = 5_000

/** Where a forced backend or an exclusion came from, for messages. */
export type Source = 'options.backend' | 'CORDON_BACKEND' | 'options.exclude' | 'CORDON_DISABLE'

export interface ForcedBackend {
  name: string
  source: Source
}

/** What the options and the environment ask for, checked and normalized. */
export interface SelectionRequest {
  candidates: readonly BackendCandidate[]
  forced: ForcedBackend | undefined
  prefer: readonly string[]
  /** Name → where its exclusion came from. */
  disabled: ReadonlyMap<string, Source>
  require: CapabilityRequirement | undefined
  backendOptions: { readonly [name: string]: object | undefined }
  probeTimeoutMs: number
  fresh: boolean
}
