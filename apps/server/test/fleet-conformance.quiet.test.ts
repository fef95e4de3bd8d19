import { describeBackendConformance, QUIET_GROUPS } from '@cordon/conformance'
import { afterAll } from 'vitest'
import { createRemoteBackend } from '@cordon/backend-remote'
import { FLEET_TOKEN, startFleet } from './support/fleet.js'

// The groups that measure the host's event loop in milliseconds, through the network (the other
// groups are in fleet-conformance.test.ts): run alone (see config/vitest.base.ts).
const fleet = await startFleet()
afterAll(() => fleet.stop())

describeBackendConformance(() => createRemoteBackend({ url: fleet.url, token: FLEET_TOKEN }), { groups: QUIET_GROUPS })
