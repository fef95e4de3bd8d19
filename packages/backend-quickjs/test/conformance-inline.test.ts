import { describeBackendConformance } from '@cordon/conformance'
import { createQuickJSBackend } from '../src/index.js'

// The in-thread mode passes the same suite; the preemption group does not apply to it (it
// declares preemptive: false, and its checks are skipped with that reason).
describeBackendConformance(() => createQuickJSBackend({ thread: 'inline' }))
