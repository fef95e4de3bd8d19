import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import WebSocket from 'ws'
import { describe, expect, it } from 'vitest'
import { cordon, tempDir } from './helpers.js'

const dir = tempDir({
  'hot.ts':
    'function fib(n: number): number {\n  return n < 2 ? n : fib(n - 1) + fib(n - 2)\n}\nlet total = 0\nconst until = Date.now() + 300\nwhile (Date.now() < until) total += fib(18)\ntotal > 0\n',
})

// With --backend auto the flags ask select for a backend with an inspector (ivm here; not on
// Node 26, where isolated-vm's inspector aborts the process and the run ends UNSUPPORTED).
describe('cordon run --cpu-prof, --cpu-prof-name, --inspect-brk', () => {
  it("--cpu-prof-name writes a .cpuprofile naming the program's hot function at its line", async () => {
    const file = path.join(dir, 'hot.cpuprofile')
    const run = await cordon(['run', 'hot.ts', '--cpu-prof-name', file], { cwd: dir })
    expect(run.stderr).toContain(`CPU profile written to ${file}`)
    expect(run.code, run.stderr).toBe(0)
    const profile = JSON.parse(readFileSync(file, 'utf8')) as {
      nodes: { callFrame: { functionName: string; url: string; lineNumber: number } }[]
    }
    const fib = profile.nodes.filter((node) => node.callFrame.functionName === 'fib')
    expect(fib.length).toBeGreaterThan(0)
    expect(fib.every((node) => node.callFrame.lineNumber === 0 && node.callFrame.url === 'cordon:///program.ts')).toBe(true)
  }, 60_000)

  it('--cpu-prof names the file after the time and process in the working directory', async () => {
    const run = await cordon(['run', '--cpu-prof', '-e', '1 + 2'], { cwd: dir })
    expect(run.code, run.stderr).toBe(0)
    const written = /CPU profile written to (.+\.cpuprofile)/.exec(run.stderr)?.[1]
    expect(written).toMatch(new RegExp(`^${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/cordon-\\d{8}-\\d{6}-\\d+\\.cpuprofile$`))
    expect(existsSync(written!)).toBe(true)
  }, 60_000)

  it('--inspect-brk prints the debugger URL and waits for it; a debugger saying go lets the run end', async () => {
    let connected = false
    let wentAt = Number.POSITIVE_INFINITY
    let printedAt = Number.NEGATIVE_INFINITY
    const run = await cordon(['run', '--inspect-brk', '-e', '6 * 7'], {
      cwd: dir,
      onStdout: () => (printedAt = performance.now()),
      onStderr: (_child, stderr) => {
        const url = /Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[0-9a-f-]{36})/.exec(stderr)?.[1]
        if (url === undefined || connected) return
        connected = true
        const socket = new WebSocket(url)
        socket.on('error', () => undefined)
        // Held a while first: the program must not run before the debugger says go.
        socket.on('open', () =>
          setTimeout(() => {
            wentAt = performance.now()
            socket.send(JSON.stringify({ id: 1, method: 'Runtime.runIfWaitingForDebugger' }))
          }, 500),
        )
      },
    })
    expect(connected).toBe(true)
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout.trim()).toBe('42')
    expect(printedAt).toBeGreaterThan(wentAt)
  }, 60_000)

  it('a bad --inspect port is a usage error', async () => {
    const run = await cordon(['run', '--inspect', '70000', '-e', '1'], { cwd: dir })
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/port number/)
  })
})
