import { describeBackendConformance, SHARED_GROUPS } from '@cordon/conformance'
import { createSubprocessBackend } from '../src/index.js'

// Long-lived children, each hosting a fresh V8 isolate per run. Warmed like an application
// would at startup: the first child starts and proves the engine loads.
describeBackendConformance(
  async () => {
    const backend = createSubprocessBackend({ engine: 'isolated-vm' })
    await backend.warm()
    return backend
  },
  { groups: SHARED_GROUPS },
)
