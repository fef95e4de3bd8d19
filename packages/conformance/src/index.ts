export {
  describeAttacks,
  describeBackendConformance,
  describeCapabilities,
  describeConcurrency,
  describeDos,
  describeErrors,
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
