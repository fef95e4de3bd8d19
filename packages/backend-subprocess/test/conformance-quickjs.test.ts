import { describeBackendConformance, SHARED_GROUPS } from '@cordon/conformance'
import { createSubprocessBackend } from '../src/index.js'

// Long-lived children, each hosting a fresh QuickJS instance per run (in the child's worker threads). Warmed like an application
// would at startup: the first child starts and proves the engine loads.
// The two leak checks measure the host's memory, which holds only the channel to the children:
// conformance-isolated-vm.test.ts proves it over 1,000 runs and 500 sessions through the same
// channel. Here 300 runs and 200 sessions prove the QuickJS engine children keep working.
describeBackendConformance(
  async () => {
    const backend = createSubprocessBackend({ engine: 'quickjs' })
    await backend.warm()
    return backend
  },
  { groups: SHARED_GROUPS, lifecycleRuns: 300, sessionChurn: 200 },
)
