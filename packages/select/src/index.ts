// Loaded on first call (deferred-select.ts): importing this package loads nothing of core.
export { createSandbox, diagnose, selectBackend } from './deferred-select.js'
export { startEngineEarly } from './early-engine.js'
export type { Selection } from './select-backend.js'
export type { CreateSandboxOptions, DiagnoseOptions, SelectOptions } from './select-options.js'
export { DEFAULT_PROBE_TIMEOUT_MS } from './select-options.js'
export type { CandidateCosts, CandidateReport, CandidateStatus, Diagnosis } from './report.js'
export type { RuntimeFacts } from './runtime-facts.js'
export { BACKEND_NAMES, BUILTIN_CANDIDATES } from './candidates.js'
export type { BackendCandidate } from './candidates.js'
/** The factory and requirement types are defined once, in @cordon/core/backend. */
export type { BackendFactory, CapabilityRequirement } from '@cordon/core/backend'
export { lazySandbox } from './lazy-sandbox.js'
export type { LazySandbox, LazySandboxOptions, SandboxSource } from './lazy-sandbox.js'
