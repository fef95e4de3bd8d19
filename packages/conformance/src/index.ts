export {
  describeAdmission,
  describeAttacks,
  describeBackendConformance,
  describeCapabilities,
  describeConcurrency,
  describeDos,
  describeDurable,
  describeErrors,
  describeEvents,
  describeFaults,
  describeFetch,
  describeIsolation,
  describeLifecycle,
  describeLimits,
  describeLogs,
  describeModules,
  describeNormalization,
  describePoisoning,
  describePreemption,
  describeSessions,
  describeTools,
  describeTraces,
  describeInspector,
  describeValues,
} from './describe.js'
export { CONFORMANCE_GROUPS, QUIET_GROUPS, SHARED_GROUPS } from './types.js'
export type { BackendFactory, CapabilityRequirement, ConformanceGroup, ConformanceOptions } from './types.js'
export type { FaultHarness } from './groups/faults.js'
