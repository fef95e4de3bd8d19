import { describeBackendConformance, SHARED_GROUPS } from '@cordon/conformance'
import { createSubprocessBackend } from '../src/index.js'

// Warm the pool like an application would at startup, and keep more spares than the default
// since the suite fires runs back to back: a cold child costs a process start (tens of ms,
// more on a busy machine), which would eat into the suite's 200–300 ms timeouts.
// Sequential runs are bounded by how fast children start (one process per run, 100-180 ms on a
// slow VM), so the leak check does 200 runs instead of 1000 (40 MB of slack: ~200 KB per run),
// and the session leak check 200 sessions (a process each) instead of 500.
describeBackendConformance(
  async () => {
    const backend = createSubprocessBackend({ engine: 'node-vm', poolSize: 4 })
    await backend.warm()
    return backend
  },
  { lifecycleRuns: 200, sessionChurn: 200, groups: SHARED_GROUPS },
)
