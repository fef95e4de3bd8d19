export {
  conformanceChecks,
  conformanceGroups,
  describeAttacks,
  describeBackendConformance,
  describeCapabilities,
  describeChecks,
  describeConcurrency,
  describeDos,
  describeErrors,
  describeIsolation,
  describeLifecycle,
  describeLimits,
  describeLogs,
  describeNormalization,
  describePoisoning,
  describeSessions,
  describeTools,
  describeValues,
} from './describe.js'
export { attacksChecks } from './groups/attacks.js'
export { capabilitiesChecks } from './groups/capabilities.js'
export { concurrencyChecks } from './groups/concurrency.js'
export { dosChecks } from './groups/dos.js'
export { errorsChecks } from './groups/errors.js'
export { isolationChecks } from './groups/isolation.js'
export { lifecycleChecks } from './groups/lifecycle.js'
export { limitsChecks } from './groups/limits.js'
export { logsChecks } from './groups/logs.js'
export { normalizationChecks } from './groups/normalization.js'
export { poisoningChecks } from './groups/poisoning.js'
export { toolsChecks } from './groups/tools.js'
export { sessionsChecks } from './groups/sessions.js'
export { valuesChecks } from './groups/values.js'
export { applicableChecks, resolveConformanceOptions, runConformanceCheck } from './runner.js'
export { CONFORMANCE_GROUPS } from './types.js'
export type {
  BackendFactory,
  CapabilityRequirement,
  CheckContext,
  CheckOutcome,
  ConformanceCheck,
  ConformanceGroup,
  ConformanceOptions,
  ResolvedConformanceOptions,
} from './types.js'
