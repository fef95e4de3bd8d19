/**
 * `cordon daemon`: a background process of the user's serving later `cordon run` commands. Each
 * test file run has its own runtime folder (XDG_RUNTIME_DIR), so its daemon is its own.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import './build-cli.js'
import { cordon, GITHUB_TOOLS, type CliOptions } from './helpers.js'

const linux = process.platform === 'linux'
let runtime: string

/** `cordon …args` with this file's runtime folder (and so its daemon, when one runs). */
function withDaemon(args: string[], options: CliOptions = {}) {
  return cordon(args, { ...options, env: { XDG_RUNTIME_DIR: runtime, ...options.env } })
}

/** The same command run in its own process only. */
function withoutDaemon(args: string[], options: CliOptions = {}) {
  return withDaemon(args, { ...options, env: { CORDON_NO_DAEMON: '1', ...options.env } })
}

/** A runtime folder of a test's own (0700, as a daemon requires), and the environment that points at it. */
function privateRuntime(prefix: string): { dir: string; env: Record<string, string> } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  chmodSync(dir, 0o700)
  return { dir, env: { XDG_RUNTIME_DIR: dir } }
}

/** The `cordon daemon serve` processes whose runtime folder is `runtime`. */
function daemonsIn(runtime: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
        const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
        return argv.includes('serve') && argv.includes('daemon') && env.includes(`XDG_RUNTIME_DIR=${runtime}`)
      } catch {
        return false
      }
    })
    .map(Number)
}

async function waitUntil(condition: () => boolean, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 100))) {
    if (condition()) return true
  }
  return condition()
}

async function status(): Promise<{ running: boolean; runs?: number; pid?: number }> {
  const r = await withDaemon(['daemon', 'status', '--json'])
  return JSON.parse(r.stdout) as { running: boolean; runs?: number }
}

describe.runIf(linux)('cordon daemon', () => {
  let dir: string

  beforeAll(async () => {
    runtime = mkdtempSync(path.join(tmpdir(), 'cordon-runtime-'))
    chmodSync(runtime, 0o700)
    dir = mkdtempSync(path.join(tmpdir(), 'cordon-daemon-files-'))
    writeFileSync(path.join(dir, 'typed.ts'), 'const n: number = 2\nconst twice = <T,>(x: T): T[] => [x, x]\ntwice(n)\n')
    writeFileSync(path.join(dir, 'tools.mjs'), GITHUB_TOOLS)
    const before = await withDaemon(['daemon', 'status'])
    expect(before.code).toBe(1)
    expect(before.stdout).toContain('not running')
    const started = await withDaemon(['daemon', 'start', '--idle', '600'])
    expect(started.code, started.stderr).toBe(0)
    expect(started.stdout).toMatch(/running \(pid \d+, \w+/)
  }, 60_000)

  afterAll(async () => {
    await withDaemon(['daemon', 'stop'])
    rmSync(runtime, { recursive: true, force: true })
    rmSync(dir, { recursive: true, force: true })
  })

  const SAME_OUTPUT: [string, string[], string | undefined][] = [
    ['a value', ['run', '-e', '1 + 2'], undefined],
    ['logs and a Map', ['run', '-e', 'console.log("a"); console.error("b"); ({ m: new Map([[1, 2]]) })'], undefined],
    ['a thrown error, with its code frame', ['run', '-e', 'const x = 1\nthrow new Error("boom")'], undefined],
    ['a syntax error', ['run', '-e', 'let = ('], undefined],
    ['a timeout', ['run', '-t', '300', '-e', 'while (true) {}'], undefined],
    ['the memory limit', ['run', '--memory', '16', '-e', 'const a = []; for (;;) a.push(new Array(1e5).fill(1))'], undefined],
    ['an output limit', ['run', '--max-output=100', '-e', '"x".repeat(1000)'], undefined],
    ['a TypeScript file', ['run', 'typed.ts'], undefined],
    ['a program on stdin', ['run', '-'], 'Math.max(4, 2)'],
    ['a missing file', ['run', 'missing.js'], undefined],
    ['a file and --eval', ['run', 'typed.ts', '-e', '1'], undefined],
    ['--json of an error', ['run', '--json', '-e', 'null.x'], undefined],
  ]

  it.each(SAME_OUTPUT)('serves %s, printing what the CLI prints alone, with the same exit code', async (_, args, input) => {
    const served = await withDaemon(args, { cwd: dir, input })
    const alone = await withoutDaemon(args, { cwd: dir, input })
    const comparable = (r: { code: number | null; stdout: string; stderr: string }) => ({
      code: r.code,
      // Timings in --json's stats differ from run to run.
      stdout: r.stdout.replace(/"(wallMs|cpuMs|heapBytes)": [\d.]+/g, '"$1": 0'),
      stderr: r.stderr,
    })
    expect(comparable(served)).toEqual(comparable(alone))
  })

  it('counts the runs it served: the ones above went through it', async () => {
    // Every case but the two the CLI refuses before it has a program (missing file, file and --eval).
    expect((await status()).runs).toBeGreaterThanOrEqual(SAME_OUTPUT.length - 2)
  })

  it('leaves a run with host tools, or another CORDON_* environment, to the CLI’s own process', async () => {
    const before = (await status()).runs!
    const tools = await withDaemon(['run', '--tools', 'tools.mjs', '-e', '(await github.listIssues({ repo: "a/b" })).length'], { cwd: dir })
    expect(tools.stdout).toBe('2\n')
    const env = await withDaemon(['run', '-e', 'while (true) {}'], { env: { CORDON_TIMEOUT_MS: '300' } })
    expect(env.code).toBe(3)
    expect(env.stderr).toContain('timeoutMs = 300')
    expect((await status()).runs).toBe(before)
  })

  it('Ctrl-C aborts the run it serves: its logs, ABORTED, exit 130; then it serves the next', async () => {
    let sent = false
    const r = await withDaemon(['run', '-e', 'console.log("before"); while (true) {}'], {
      onStdout: (child, stdout) => {
        if (!sent && stdout.includes('before')) sent = child.kill('SIGINT')
      },
    })
    expect(sent).toBe(true)
    expect(r.code).toBe(130)
    expect(r.stdout).toBe('before\n')
    expect(r.stderr).toContain('ABORTED: ')
    expect((await withDaemon(['run', '-e', '40 + 2'])).stdout).toBe('42\n')
  })

  it('serves another command while one of its runs spins', async () => {
    const order: string[] = []
    const before = (await status()).runs!
    const spinning = withDaemon(['run', '-t', '4000', '-e', 'while (true) {}']).then((r) => {
      order.push('spinning')
      return r
    })
    // Once the daemon has the spinning run (its count says so), ask it for another.
    for (let i = 0; i < 100 && (await status()).runs === before; i++) await new Promise((resolve) => setTimeout(resolve, 50))
    const quick = await withDaemon(['run', '-e', '1 + 1'])
    order.push('quick')
    expect(quick.stdout).toBe('2\n')
    expect((await spinning).code).toBe(3)
    expect(order).toEqual(['quick', 'spinning'])
  })

  it('refuses a runtime folder others may enter, and the CLI then runs alone', async () => {
    const open = mkdtempSync(path.join(tmpdir(), 'cordon-open-runtime-'))
    try {
      mkdirSync(path.join(open, 'cordon'), { mode: 0o777 })
      chmodSync(path.join(open, 'cordon'), 0o777)
      const start = await cordon(['daemon', 'start'], { env: { XDG_RUNTIME_DIR: open } })
      expect(start.code).toBe(4)
      expect(start.stderr).toContain('may be entered by group or others')
      expect(readdirSync(path.join(open, 'cordon'))).toEqual([])
      expect((await cordon(['run', '-e', '1 + 1'], { env: { XDG_RUNTIME_DIR: open } })).stdout).toBe('2\n')
    } finally {
      rmSync(open, { recursive: true, force: true })
    }
  })

  it('ends by itself after --idle seconds without a run, and removes its socket', async () => {
    const { dir: other, env } = privateRuntime('cordon-idle-runtime-')
    try {
      expect((await cordon(['daemon', 'start', '--idle', '1'], { env })).code).toBe(0)
      expect(daemonsIn(other)).toHaveLength(1)
      expect(await waitUntil(() => daemonsIn(other).length === 0, 10_000)).toBe(true)
      expect(readdirSync(path.join(other, 'cordon')).filter((name) => name.endsWith('.sock'))).toEqual([])
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  }, 30_000)

  it('a daemon killed outright leaves a socket the CLI passes over and the next start replaces; two starts at once make one', async () => {
    const { dir: other, env } = privateRuntime('cordon-stale-runtime-')
    const pidOf = async () => (JSON.parse((await cordon(['daemon', 'status', '--json'], { env })).stdout) as { pid?: number }).pid
    try {
      expect((await cordon(['daemon', 'start'], { env })).code).toBe(0)
      const killed = (await pidOf())!
      process.kill(killed, 'SIGKILL')
      expect(readdirSync(path.join(other, 'cordon')).filter((name) => name.endsWith('.sock'))).toHaveLength(1)
      expect((await cordon(['run', '-e', '3 * 3'], { env })).stdout).toBe('9\n')
      expect((await cordon(['daemon', 'status'], { env })).code).toBe(1)
      const [a, b] = await Promise.all([cordon(['daemon', 'start'], { env }), cordon(['daemon', 'start'], { env })])
      expect([a.code, b.code]).toEqual([0, 0])
      const pid = await pidOf()
      expect(pid).not.toBe(killed)
      expect(a.stdout).toContain(`pid ${pid}`)
      expect(b.stdout).toContain(`pid ${pid}`)
      // And only that one is left: one that lost the race for the socket's name ends by itself.
      expect(await waitUntil(() => daemonsIn(other).length === 1, 10_000)).toBe(true)
      expect(daemonsIn(other)).toEqual([pid])
    } finally {
      await cordon(['daemon', 'stop'], { env })
      rmSync(other, { recursive: true, force: true })
    }
  }, 60_000)

  it('ends by itself, leaving the file alone, when its socket’s name is taken over', async () => {
    const { dir: other, env } = privateRuntime('cordon-taken-runtime-')
    const squatter = net.createServer()
    try {
      expect((await cordon(['daemon', 'start'], { env })).code).toBe(0)
      expect(daemonsIn(other)).toHaveLength(1)
      const [name] = readdirSync(path.join(other, 'cordon')).filter((file) => file.endsWith('.sock'))
      const socket = path.join(other, 'cordon', name!)
      rmSync(socket)
      await new Promise<void>((resolve) => squatter.listen(socket, resolve))
      expect(await waitUntil(() => daemonsIn(other).length === 0, 10_000)).toBe(true)
      expect(existsSync(socket)).toBe(true)
    } finally {
      squatter.close()
      rmSync(other, { recursive: true, force: true })
    }
  }, 30_000)

  it('stop ends it; later runs run in the CLI’s own process', async () => {
    const { pid } = await status()
    const stop = await withDaemon(['daemon', 'stop'])
    expect(stop.stdout).toContain(`stopped (pid ${pid}`)
    expect((await status()).running).toBe(false)
    expect(existsSync(path.join(runtime, 'cordon'))).toBe(true)
    expect((await withDaemon(['run', '-e', '2 * 3'])).stdout).toBe('6\n')
  })
})
