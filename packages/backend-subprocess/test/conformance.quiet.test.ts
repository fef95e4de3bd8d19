import { describeBackendConformance, QUIET_GROUPS } from '@cordon/conformance'
import { describe } from 'vitest'
import { createSubprocessBackend } from '../src/index.js'

// The groups that measure the host's event loop in milliseconds, for each engine (the other
// groups are in conformance*.test.ts): run alone (see config/vitest.base.ts). Warmed as there.
describe.each(['isolated-vm', 'quickjs', 'node-vm'] as const)('engine %s', (engine) => {
  describeBackendConformance(
    async () => {
      const backend = createSubprocessBackend(engine === 'node-vm' ? { engine, poolSize: 4 } : { engine })
      await backend.warm()
      return backend
    },
    { groups: QUIET_GROUPS },
  )
})
