import { describeBackendConformance, SHARED_GROUPS } from '@cordon/conformance'
import { afterAll } from 'vitest'
import { createRemoteBackend } from '@cordon/backend-remote'
import { FLEET_TOKEN, startFleet } from './support/fleet.js'

// The whole suite through the network: three cordon-server processes behind HAProxy, with the
// servers' default backend (the strongest that works here). The preemption group is in
// fleet-conformance.quiet.test.ts.
const fleet = await startFleet()
afterAll(() => fleet.stop())

// Fewer runs in the two leak checks than the default: the caller's memory over the network is
// ws connections only, and fleet-load.quiet.test.ts runs 1,000 more under faults.
describeBackendConformance(() => createRemoteBackend({ url: fleet.url, token: FLEET_TOKEN }), {
  lifecycleRuns: 400,
  sessionChurn: 200,
  groups: SHARED_GROUPS,
})
