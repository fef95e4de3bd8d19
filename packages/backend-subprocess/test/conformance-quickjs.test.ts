import { describeBackendConformance } from '@cordon/conformance'
import { createSubprocessBackend } from '../src/index.js'

// Long-lived children, each hosting a fresh QuickJS instance per run (in the child's worker threads). Warmed like an application
// would at startup: the first child starts and proves the engine loads.
describeBackendConformance(async () => {
  const backend = createSubprocessBackend({ engine: 'quickjs' })
  await backend.warm()
  return backend
})
