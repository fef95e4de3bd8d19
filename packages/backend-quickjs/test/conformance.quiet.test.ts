import { describeBackendConformance, QUIET_GROUPS } from '@cordon/conformance'
import { createQuickJSBackend } from '../src/index.js'

// The groups that measure the host's event loop in milliseconds: run alone (see config/vitest.base.ts).
describeBackendConformance(() => createQuickJSBackend(), { groups: QUIET_GROUPS })
