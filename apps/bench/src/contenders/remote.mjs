// cordon's remote backend: cordon-server processes on loopback, reached directly (one server)
// and through HAProxy (three servers, the repo's deploy/haproxy.cfg), against the same engine
// in-process (cordon-subprocess) in the same run.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { createSandbox } from '@cordon/core'
import { untilIdle } from '../idle.mjs'
import { reasonOf } from '../reason.mjs'
import { sandboxWorkloads } from './cordon.mjs'

const TOKEN = 'bench-remote-token-0123456789'
const serverDir = dirname(createRequire(import.meta.url).resolve('@cordon/server/package.json'))

async function portFree() {
  const listener = createServer().listen(0, '127.0.0.1')
  await new Promise((resolve) => listener.once('listening', resolve))
  const { port } = listener.address()
  await new Promise((resolve) => listener.close(resolve))
  return port
}

async function until(url, what) {
  for (let waited = 0; waited < 30_000; waited += 50) {
    if ((await fetch(url).catch(() => undefined))?.status === 200) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`${what} was not ready within 30 s`)
}

/** `count` servers (each with `--max-runs 64`: the bench measures speed, not admission). */
async function startServers(count, processes) {
  const ports = []
  for (let i = 0; i < count; i++) {
    const port = await portFree()
    const server = spawn(process.execPath, [join(serverDir, 'dist', 'main.js'), '--port', String(port), '--max-runs', '64'], {
      env: { ...process.env, CORDON_SERVER_TOKEN: TOKEN },
      stdio: 'ignore',
    })
    processes.push(server)
    ports.push(port)
  }
  await Promise.all(ports.map((port) => until(`http://127.0.0.1:${port}/readyz`, `cordon-server on ${port}`)))
  return ports
}

function haproxyBinary() {
  const found = spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).stdout.trim()
  if (found) return found
  if (existsSync('/usr/sbin/haproxy')) return '/usr/sbin/haproxy'
  throw new Error('HAProxy is not installed (apt-get install haproxy)')
}

async function remoteContender({ id, name, servers, proxy }) {
  const processes = []
  const stop = () => processes.forEach((child) => child.kill('SIGKILL'))
  try {
    const ports = await startServers(servers, processes)
    let url = `http://127.0.0.1:${ports[0]}`
    if (proxy) {
      const bind = await portFree()
      const env = { ...process.env, CORDON_FLEET_BIND: `127.0.0.1:${bind}` }
      ports.forEach((port, i) => (env[`CORDON_SERVER_${i + 1}`] = `127.0.0.1:${port}`))
      processes.push(spawn(haproxyBinary(), ['-db', '-f', join(serverDir, 'deploy', 'haproxy.cfg')], { env, stdio: 'ignore' }))
      url = `http://127.0.0.1:${bind}`
      await until(`${url}/readyz`, 'HAProxy')
    }
    const { createRemoteBackend } = await import('@cordon/backend-remote')
    const sandbox = createSandbox(await createRemoteBackend({ url, token: TOKEN }))
    return {
      id,
      name,
      engine: 'subprocess',
      note: 'the servers run the default backend (engine children); tools run in the bench process',
      sandbox,
      ready: () => () => untilIdle(15),
      ...sandboxWorkloads(sandbox),
      dispose: async () => {
        await sandbox.dispose()
        stop()
      },
    }
  } catch (error) {
    stop()
    return { id, name, engine: 'subprocess', unavailable: reasonOf(error) }
  }
}

export const remoteContenders = [
  {
    id: 'cordon-remote',
    load: () => remoteContender({ id: 'cordon-remote', name: 'cordon remote (one cordon-server on loopback)', servers: 1, proxy: false }),
  },
  {
    id: 'cordon-remote-fleet',
    load: () =>
      remoteContender({
        id: 'cordon-remote-fleet',
        name: 'cordon remote (3 cordon-servers behind HAProxy, loopback)',
        servers: 3,
        proxy: true,
      }),
  },
]
