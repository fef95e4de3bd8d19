import { describeBackendConformance, SHARED_GROUPS } from '@cordon/conformance'
import { describe } from 'vitest'
import { createIvmBackend } from '../src/index.js'

// The groups that hold beside other suites; the preemption group is in conformance.quiet.test.ts.
describeBackendConformance(() => createIvmBackend(), { groups: SHARED_GROUPS })

// The inspector is opt-in here (see options.ts): by default the inspector group checks UNSUPPORTED;
// with `inspector: true`, the debugger and the profile themselves.
describe('with inspector: true', () => {
  describeBackendConformance(() => createIvmBackend({ inspector: true }), { groups: ['inspector'] })
})
