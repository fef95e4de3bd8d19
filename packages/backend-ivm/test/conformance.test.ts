import { describeBackendConformance, SHARED_GROUPS } from '@cordon/conformance'
import { createIvmBackend } from '../src/index.js'

// The groups that hold beside other suites; the preemption group is in conformance.quiet.test.ts.
describeBackendConformance(() => createIvmBackend(), { groups: SHARED_GROUPS })
