export {
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
  describeNormalization,
  describePoisoning,
  describePreemption,
  describeSessions,
  describeTools,
  describeValues,
} from './describe.js'
export type { BackendFactory, CapabilityRequirement, ConformanceGroup, ConformanceOptions } from './types.js'
export type { FaultHarness } from './groups/faults.js'
