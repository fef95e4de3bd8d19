import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { findHaproxy } from './haproxy.js'

export const FLEET_TOKEN = 'fleet-test-token-0123456789'

const serverPackage = fileURLToPath(new URL('../..', import.meta.url))
/** The bin as an operator runs it (built by the test task), and the HAProxy config the docs show. */
export const SERVER_MAIN = join(serverPackage, 'dist', 'main.js')
export const HAPROXY_CONFIG = join(serverPackage, 'deploy', 'haproxy.cfg')

export interface FleetServer {
  readonly port: number
  /** The running process, or undefined while it is down. */
  process: ChildProcess | undefined
  /** Its structured log lines. */
  readonly logs: Record<string, unknown>[]
}

export interface Fleet {
  /** The load balancer's URL: what callers use. */
  readonly url: string
  readonly servers: readonly FleetServer[]
  /** SIGKILL: the server dies mid-whatever, as in a crash or an OOM kill. */
  kill(index: number): Promise<void>
  /** SIGTERM: the server drains. Resolves when it has exited. */
  terminate(index: number): Promise<number | null>
  /** Starts a stopped server again on its port, as a supervisor would; resolves when it is ready. */
  restart(index: number): Promise<void>
  /** Stops every server and HAProxy. */
  stop(): Promise<void>
}

export async function freePort(): Promise<number> {
  const probe = createServer()
  probe.listen(0, '127.0.0.1')
  await once(probe, 'listening')
  const { port } = probe.address() as { port: number }
  probe.close()
  await once(probe, 'close')
  return port
}

async function waitFor(check: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (await check().catch(() => false)) return
    await new Promise((resume) => setTimeout(resume, 25))
  }
  throw new Error(`${what} within ${ms} ms`)
}

const ready = (port: number) => async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200

export interface FleetOptions {
  servers?: number
  /** Extra flags for every cordon-server. */
  serverArgs?: string[]
}

/** Three (or `servers`) cordon-server processes on loopback behind HAProxy with the repo's config. */
export async function startFleet(options: FleetOptions = {}): Promise<Fleet> {
  const haproxy = findHaproxy()
  const count = options.servers ?? 3
  const servers: FleetServer[] = []
  for (let i = 0; i < count; i++) servers.push({ port: await freePort(), process: undefined, logs: [] })

  const launch = async (server: FleetServer) => {
    const child = spawn(process.execPath, [SERVER_MAIN, '--port', String(server.port), ...(options.serverArgs ?? [])], {
      env: { ...process.env, CORDON_SERVER_TOKEN: FLEET_TOKEN },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    server.process = child
    let rest = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString('utf8')).split('\n')
      rest = lines.pop() ?? ''
      for (const line of lines) if (line.trim() !== '') server.logs.push(JSON.parse(line) as Record<string, unknown>)
    })
    child.once('exit', () => {
      if (server.process === child) server.process = undefined
    })
    await waitFor(ready(server.port), `cordon-server on port ${server.port} was not ready`)
  }
  await Promise.all(servers.map(launch))

  const bind = await freePort()
  const env: NodeJS.ProcessEnv = { ...process.env, CORDON_FLEET_BIND: `127.0.0.1:${bind}` }
  servers.forEach((server, i) => (env[`CORDON_SERVER_${i + 1}`] = `127.0.0.1:${server.port}`))
  // -db: stay in the foreground, so the test owns the process.
  const proxy = spawn(haproxy, ['-db', '-f', HAPROXY_CONFIG], { env, stdio: ['ignore', 'ignore', 'inherit'] })
  const url = `http://127.0.0.1:${bind}`
  // Ready when every server passed its first health check.
  await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, 'HAProxy did not serve')
  await new Promise((resume) => setTimeout(resume, 600))

  const stopProcess = async (child: ChildProcess | undefined, signal: NodeJS.Signals) => {
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null
    const exited = once(child, 'exit')
    child.kill(signal)
    const [code] = (await exited) as [number | null]
    return code
  }

  return {
    url,
    servers,
    async kill(index) {
      await stopProcess(servers[index]?.process, 'SIGKILL')
    },
    terminate: (index) => stopProcess(servers[index]?.process, 'SIGTERM'),
    async restart(index) {
      const server = servers[index]
      if (server === undefined || server.process !== undefined) return
      await launch(server)
    },
    async stop() {
      await Promise.all([...servers.map((server) => stopProcess(server.process, 'SIGKILL')), stopProcess(proxy, 'SIGTERM')])
    },
  }
}
