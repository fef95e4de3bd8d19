import { describeBackendConformance, QUIET_GROUPS } from '@cordon/conformance'
import { createIvmBackend } from '../src/index.js'

// The groups that measure the host's event loop in milliseconds: run alone (see config/vitest.base.ts).
describeBackendConformance(() => createIvmBackend(), { groups: QUIET_GROUPS })
