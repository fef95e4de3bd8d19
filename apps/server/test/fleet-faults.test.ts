import { createRemoteBackend } from '@cordon/backend-remote'
import { describeFaults } from '@cordon/conformance'
import { afterAll } from 'vitest'
import { FLEET_TOKEN, startFleet } from './support/fleet.js'
import { metricsOf, sample } from './support/metrics-text.js'

// The conformance fault checks with servers as the runners: a server is killed (SIGKILL) from
// outside as a crash or an OOM killer would, and its supervisor (here, the test) starts it again.
const fleet = await startFleet()
afterAll(() => fleet.stop())

describeFaults({
  async runners() {
    const busy: number[] = []
    for (const server of fleet.servers) {
      const pid = server.process?.pid
      if (pid === undefined) continue
      const text = await metricsOf(`http://127.0.0.1:${server.port}`).catch(() => '')
      if (sample(text, 'cordon_server_runs_in_flight') > 0) busy.push(pid)
    }
    return busy
  },
  async kill(pid) {
    const index = fleet.servers.findIndex((server) => server.process?.pid === pid)
    await fleet.kill(index)
    void fleet.restart(index)
  },
  // HAProxy's leastconn gives each of up to three concurrent runs a server of its own.
  oneRunPerRunner: () => createRemoteBackend({ url: fleet.url, token: FLEET_TOKEN }),
})
