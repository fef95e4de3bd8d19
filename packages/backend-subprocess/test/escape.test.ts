/**
 * Defence in depth: these runs simulate a node:vm escape by handing the guest the child's
 * own `process` (a test-only switch). Even then the child must not read files, start
 * processes or threads, load addons, reach the network, or harm the host.
 */
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import fs from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Sandbox } from '@cordon/core'
import type { SubprocessBackend } from '../src/subprocess-backend.js'
import { errorOf, open, valueOf } from './helpers.js'

let backend: SubprocessBackend
let sandbox: Sandbox

beforeAll(async () => {
  ;({ backend, sandbox } = await open({ poolSize: 3 }, { exposeProcess: true }))
})
afterAll(async () => {
  await sandbox.dispose()
})

/** Runs `body` with `p` = the child's process and `attempt(fn)` = the error code fn throws (or 'allowed'). */
async function escaped(body: string): Promise<unknown> {
  const code = `
const p = escapedProcess
const mod = (name) => p.getBuiltinModule(name)
const attempt = (fn) => { try { const r = fn(); return 'allowed: ' + String(r).slice(0, 60) } catch (e) { return e.code || e.name + ': ' + e.message } }
const settle = async (start) => {
  let status
  try { start((s) => { if (status === undefined) status = s }) } catch (e) { return e.code || e.message }
  for (let i = 0; i < 200 && status === undefined; i++) await new Promise((r) => setTimeout(r, 10))
  return status ?? 'no answer'
}
${body}`
  return valueOf(await sandbox.run(code, { timeoutMs: 10_000 }))
}

/**
 * Starts a host server, has the escaped guest call `net.connect(<connectArgs>)` on it, and
 * asserts that the guest did not connect and the server saw no connection.
 */
async function expectNoConnection(listen: (server: net.Server) => void, connectArgs: (server: net.Server) => string): Promise<void> {
  let connections = 0
  const server = net.createServer((socket) => {
    connections++
    socket.destroy()
  })
  await new Promise<void>((resolve) => {
    server.once('listening', resolve)
    listen(server)
  })
  try {
    const status = await escaped(`return await settle((done) => {
      const socket = mod('net').connect(${connectArgs(server)})
      socket.on('connect', () => done('CONNECTED'))
      socket.on('error', (e) => done(e.code))
    })`)
    expect(status).not.toBe('CONNECTED')
    expect(connections).toBe(0)
  } finally {
    server.close()
  }
}

describe('after an escape inside the child', () => {
  it('the guest really holds the child process (the simulation works)', async () => {
    expect(await escaped('return typeof p.pid')).toBe('number')
  })

  it('cannot read files, list folders or write files', async () => {
    const secret = path.join(os.tmpdir(), `cordon-secret-${process.pid}.txt`)
    fs.writeFileSync(secret, 'secret')
    try {
      const result = (await escaped(`return {
        passwd: attempt(() => mod('fs').readFileSync('/etc/passwd', 'utf8')),
        secret: attempt(() => mod('fs').readFileSync(${JSON.stringify(secret)}, 'utf8')),
        list: attempt(() => mod('fs').readdirSync('/')),
        write: attempt(() => mod('fs').writeFileSync(${JSON.stringify(secret + '.2')}, 'x')),
        procSelf: attempt(() => mod('fs').readFileSync('/proc/self/environ', 'utf8')),
      }`)) as Record<string, string>
      for (const [what, outcome] of Object.entries(result)) expect(outcome, what).toBe('ERR_ACCESS_DENIED')
      expect(fs.existsSync(`${secret}.2`)).toBe(false)
    } finally {
      fs.rmSync(secret, { force: true })
    }
  })

  it('cannot start processes, threads or native addons', async () => {
    const result = (await escaped(`return {
      spawnSync: attempt(() => mod('child_process').spawnSync('/bin/sh', ['-c', 'echo hi']).stdout),
      execSync: attempt(() => mod('child_process').execSync('id')),
      spawn: attempt(() => mod('child_process').spawn('/bin/sh')),
      worker: attempt(() => new (mod('worker_threads').Worker)('1', { eval: true })),
      dlopen: attempt(() => p.dlopen({ exports: {} }, '/nonexistent/addon.node')),
    }`)) as Record<string, string>
    expect(result.spawnSync).toBe('ERR_ACCESS_DENIED')
    expect(result.execSync).toBe('ERR_ACCESS_DENIED')
    expect(result.spawn).toBe('ERR_ACCESS_DENIED')
    expect(result.worker).toBe('ERR_ACCESS_DENIED')
    expect(result.dlopen).toMatch(/^(ERR_DLOPEN_DISABLED|ERR_ACCESS_DENIED)$/)
  })

  it('cannot use internal bindings, the inspector or process reports', async () => {
    const report = path.join(os.tmpdir(), `cordon-report-${process.pid}.json`)
    const result = (await escaped(`return {
      fsBinding: attempt(() => p.binding('fs')),
      spawnBinding: attempt(() => p.binding('spawn_sync')),
      tcpBinding: attempt(() => p.binding('tcp_wrap')),
      inspector: attempt(() => new (mod('inspector').Session)().connect()),
      report: attempt(() => p.report.writeReport(${JSON.stringify(report)})),
    }`)) as Record<string, string>
    for (const [what, outcome] of Object.entries(result)) expect(outcome, what).toBe('ERR_ACCESS_DENIED')
    expect(fs.existsSync(report)).toBe(false)
  })

  it('has an empty environment and cannot compile code in its own realm', async () => {
    const result = (await escaped(`return {
      env: JSON.stringify(p.env),
      fn: attempt(() => p.constructor.constructor('return 1')()),
    }`)) as Record<string, string>
    expect(result.env).toBe('{}')
    expect(result.fn).toMatch(/EvalError/)
  })

  it('cannot reach a TCP server on the host', async () => {
    await expectNoConnection(
      (server) => server.listen(0, '127.0.0.1'),
      (server) => {
        const port = (server.address() as net.AddressInfo).port
        return `${port}, '127.0.0.1'`
      },
    )
  })

  it('cannot reach a Unix socket on the host', async (ctx) => {
    const diagnostics = await backend.diagnose()
    const dropsUser = diagnostics.layers.some((layer) => layer.includes('nobody'))
    if (!dropsUser && diagnostics.network !== 'permission-model') ctx.skip()
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cordon-sock-'))
    const file = path.join(dir, 's.sock')
    try {
      await expectNoConnection(
        (server) => server.listen(file),
        () => JSON.stringify(file),
      )
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it('cannot signal the host (PID namespace)', async (ctx) => {
    const diagnostics = await backend.diagnose()
    if (!diagnostics.layers.some((layer) => layer.includes('PID'))) ctx.skip()
    const result = (await escaped(`return {
      pid: p.pid,
      ppid: p.ppid,
      host: attempt(() => p.kill(${process.pid}, 0)),
      everyone: attempt(() => p.kill(-1, 0)),
    }`)) as Record<string, unknown>
    // Alone in its namespace: the host's pid does not exist there, and kill(-1) finds nobody.
    expect(result).toEqual({ pid: 1, ppid: 0, host: 'ESRCH', everyone: 'ESRCH' })
    // kill(ppid = 0) signals the child's own process group (where, as the namespace's init, it
    // ignores even SIGKILL from itself), never the host's: the run just times out.
    const killed = errorOf(
      await sandbox.run(
        'escapedProcess.kill(escapedProcess.ppid, "SIGKILL")\nawait new Promise((resolve) => setTimeout(resolve, 3600000))',
        { timeoutMs: 500 },
      ),
    )
    expect(killed.code).toMatch(/^(TIMEOUT|BACKEND_CRASHED)$/)
    expect(valueOf(await sandbox.run('1 + 1'))).toBe(2)
  })

  it('process.abort() and process.exit() end the run as BACKEND_CRASHED; host and pool stay healthy', async () => {
    const aborted = errorOf(await sandbox.run('escapedProcess.abort()'))
    expect(aborted.code).toBe('BACKEND_CRASHED')
    const exited = errorOf(await sandbox.run('escapedProcess.exit(0)'))
    expect(exited.code).toBe('BACKEND_CRASHED')
    expect(exited.message).toMatch(/exited with code 0/)
    expect(valueOf(await sandbox.run('1 + 1'))).toBe(2)
  })

  it("a child that dies of an uncaught error names the error and its code, not Node's last lines", async () => {
    const crashed = errorOf(
      await sandbox.run(
        "escapedProcess.nextTick(() => { throw Object.assign(new TypeError('boom in the child'), { code: 'E_BOOM' }) })\nawait new Promise((resolve) => setTimeout(resolve, 3600000))",
      ),
    )
    expect(crashed.code).toBe('BACKEND_CRASHED')
    expect(crashed.message).toMatch(/exited with code 1 before the guest finished: TypeError: boom in the child \| code: 'E_BOOM'$/)
  })
})

describe('without the test switch', () => {
  it('the classic escapes reach nothing', async () => {
    const plain = await open()
    try {
      const result = valueOf(
        await plain.sandbox.run(`
          const attempt = (fn) => { try { return String(fn()) } catch (e) { return e.name } }
          return [
            attempt(() => this.constructor.constructor('return typeof process')()),
            attempt(() => globalThis.constructor.constructor('return typeof process')()),
            attempt(() => console.log.constructor.constructor('return typeof process')()),
            typeof escapedProcess,
          ]`),
      )
      expect(result).toEqual(['undefined', 'undefined', 'undefined', 'undefined'])
    } finally {
      await plain.sandbox.dispose()
    }
  })
})
