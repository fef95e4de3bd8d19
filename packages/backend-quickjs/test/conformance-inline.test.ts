import { describeBackendConformance, SHARED_GROUPS } from '@cordon/conformance'
import { createQuickJSBackend } from '../src/index.js'

// The in-thread mode passes the same suite. The preemption group does not apply to it: it
// declares preemptive: false (the capabilities group checks that), so its checks would all be skipped.
describeBackendConformance(() => createQuickJSBackend({ thread: 'inline' }), { groups: SHARED_GROUPS })
