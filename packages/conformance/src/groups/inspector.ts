/**
 * The debugger (`inspector`) and the CPU profile (`cpuProfile`), driven by a real Chrome DevTools
 * Protocol client from the registry (chrome-remote-interface) the way DevTools drives Node: it
 * finds the program through its source map, sets a breakpoint by the user's line, reads and
 * evaluates in the paused frame and resumes. A paused debugger must not outlive the deadline,
 * and the socket is loopback only, at an unguessable path.
 */
import type { CpuProfile, RunOptions } from '@cordon/core'
import { expectDeadline, expectError, expectOk, timedRun } from '../harness/run.js'
import { within } from '../runner.js'
import type { ConformanceCheck } from '../types.js'
import { startDebugged, withClient } from '../harness/debugged-run.js'
import { FIB, HOT_PROGRAM, hotFunctionFrames } from '../harness/cpu-profile.js'
import { inspectorSessionChecks } from './inspector-sessions.js'

/** A TypeScript program: types on the lines around the breakpoint, so columns and lines must map. */
const TYPED_PROGRAM = [
  'interface Point { x: number; y: number }',
  'function norm(p: Point): number {',
  '  const squared: number = p.x * p.x + p.y * p.y',
  '  return Math.sqrt(squared)',
  '}',
  'const value: number = norm({ x: 3, y: 4 } as Point)',
  'value * 2',
].join('\n')
const RETURN_LINE = 4
const FIRST_STATEMENT_LINE = 6

export const inspectorChecks: readonly ConformanceCheck[] = [
  {
    group: 'inspector',
    name: 'without capabilities.inspector, inspector and cpuProfile end the run UNSUPPORTED before guest code runs',
    requires: { inspector: [false, undefined] },
    async run({ sandbox }) {
      for (const options of [{ inspector: true }, { cpuProfile: true }] satisfies RunOptions[]) {
        let ran = false
        const { result } = await timedRun(sandbox, 'await probe.ran()\n1', {
          ...options,
          tools: { 'probe.ran': { execute: () => (ran = true) } },
        })
        expectError(result, 'UNSUPPORTED')
        if (ran) throw new Error(`guest code ran although ${Object.keys(options)[0]} was UNSUPPORTED`)
      }
    },
  },
  {
    group: 'inspector',
    name: 'a CDP client pauses a TypeScript program at a breakpoint set by its line, reads and evaluates in scope, resumes',
    requires: { inspector: true },
    timeoutMs: 60_000,
    async run({ sandbox }) {
      const { endpoint, run } = await startDebugged(sandbox, TYPED_PROGRAM, { inspector: { waitForDebugger: true }, timeoutMs: 30_000 })
      if (!/^ws:\/\/(127\.0\.0\.1|\[::1\]|localhost):\d+\/[0-9a-f-]{36}$/.test(endpoint.webSocketUrl)) {
        throw new Error(`the debugger's URL is not loopback with an unguessable path: ${endpoint.webSocketUrl}`)
      }
      await withClient(endpoint, async (client) => {
        const program = await client.enableAndFindProgram()
        if (!program.source.includes('interface Point')) throw new Error('the source map does not carry the TypeScript the user wrote')
        await client.setBreakpointAtLine(program, RETURN_LINE)
        // waitForDebugger: the first pause is the program's first statement, not cordon's runtime.
        const start = await client.goAndPause()
        const startLine = program.userLine(start.callFrames[0]!.location)
        if (startLine !== FIRST_STATEMENT_LINE) {
          throw new Error(
            `the first pause is at line ${startLine} of the program (${start.callFrames[0]!.url}), expected ${FIRST_STATEMENT_LINE}`,
          )
        }
        const atBreakpoint = client.nextPause()
        await client.send('Debugger.resume')
        const paused = await atBreakpoint
        const frame = paused.callFrames[0]!
        const line = program.userLine(frame.location)
        if (line !== RETURN_LINE || frame.functionName !== 'norm') {
          throw new Error(`paused in ${frame.functionName} at line ${line}, expected norm at line ${RETURN_LINE}`)
        }
        const squared = await client.localValue(frame, 'squared')
        if (squared !== 25) throw new Error(`the local variable squared reads ${JSON.stringify(squared)}, expected 25`)
        const evaluated = await client.evaluateOnFrame(frame, 'squared + p.x')
        if (evaluated !== 28) throw new Error(`evaluating squared + p.x in the frame gave ${JSON.stringify(evaluated)}, expected 28`)
        await client.send('Debugger.resume')
        const { result } = await run
        const value = expectOk(result)
        if (value !== 10) throw new Error(`the run ended with ${JSON.stringify(value)}, expected 10`)
      })
    },
  },
  {
    group: 'inspector',
    name: 'a debugger that stays paused does not keep the run past its deadline, and its socket closes',
    requires: { inspector: true },
    timeoutMs: 60_000,
    async run({ sandbox, options }) {
      const timeoutMs = 3_000
      const { endpoint, run } = await startDebugged(sandbox, 'let n = 1\nn += 1\nn', { inspector: { waitForDebugger: true }, timeoutMs })
      await withClient(endpoint, async (client) => {
        await client.enableAndFindProgram()
        await client.goAndPause()
        const timed = await run
        expectDeadline(timed, 'TIMEOUT', timeoutMs, options.timeoutSlackMs)
        await within(client.closed, 5_000, 'the debugger socket stayed open after the run ended')
      })
      await expectRefused(endpoint.webSocketUrl, 'after the run ended')
    },
  },
  {
    group: 'inspector',
    name: 'the debugger socket refuses another path and a foreign Host header, and lists its target for chrome://inspect',
    requires: { inspector: true },
    timeoutMs: 60_000,
    async run({ sandbox }) {
      const { endpoint, run } = await startDebugged(sandbox, '1', { inspector: { waitForDebugger: true }, timeoutMs: 20_000 })
      const base = `http://${endpoint.webSocketUrl.slice('ws://'.length).split('/')[0]}`
      const list = (await (await fetch(`${base}/json/list`, { signal: AbortSignal.timeout(10_000) })).json()) as {
        webSocketDebuggerUrl?: string
      }[]
      if (list[0]?.webSocketDebuggerUrl !== endpoint.webSocketUrl)
        throw new Error(`/json/list does not list the run: ${JSON.stringify(list)}`)
      await expectRefused(endpoint.webSocketUrl.replace(/[0-9a-f]{8}-/, '00000000-'), 'at a guessed path')
      await expectRefused(endpoint.webSocketUrl, 'with Host: attacker.example', { host: 'attacker.example' })
      await withClient(endpoint, async (client) => {
        await client.send('Runtime.runIfWaitingForDebugger')
        const value = expectOk((await run).result)
        if (value !== 1) throw new Error(`the run ended with ${JSON.stringify(value)}`)
      })
    },
  },
  {
    group: 'inspector',
    name: 'a client that resets its connection once the debugger socket refused it leaves the host running',
    requires: { inspector: true },
    timeoutMs: 60_000,
    async run({ sandbox }) {
      // The refused socket is the server's own after an HTTP upgrade: with no listener of its
      // own, the reset's read error would be thrown in the host (any local process could do it).
      const { endpoint, run } = await startDebugged(sandbox, '1', { inspector: { waitForDebugger: true }, timeoutMs: 20_000 })
      for (let attempt = 0; attempt < 10; attempt++) {
        await resetAfterRefusal(endpoint.webSocketUrl, '/guessed', 'localhost')
        await resetAfterRefusal(endpoint.webSocketUrl, new URL(endpoint.webSocketUrl).pathname, 'attacker.example')
      }
      // The resets' errors are read on later turns of the host's event loop.
      await new Promise((resolve) => setTimeout(resolve, 200))
      await withClient(endpoint, async (client) => {
        await client.send('Runtime.runIfWaitingForDebugger')
        const value = expectOk((await run).result)
        if (value !== 1) throw new Error(`the run ended with ${JSON.stringify(value)}`)
      })
    },
  },
  {
    group: 'inspector',
    name: 'suspendDeadline lets a paused run outlive timeoutMs; an abort still ends it',
    requires: { inspector: true },
    timeoutMs: 60_000,
    async run({ sandbox, options }) {
      const { endpoint, run } = await startDebugged(sandbox, 'let n = 20\nn += 1\nn * 2', {
        inspector: { waitForDebugger: true, suspendDeadline: true },
        timeoutMs: 300,
      })
      await withClient(endpoint, async (client) => {
        await client.enableAndFindProgram()
        await client.goAndPause()
        await new Promise((resolve) => setTimeout(resolve, 1_000))
        await client.send('Debugger.resume')
        const value = expectOk((await run).result)
        if (value !== 42) throw new Error(`the run ended with ${JSON.stringify(value)}, expected 42`)
      })
      const controller = new AbortController()
      const aborted = await startDebugged(sandbox, 'while (true) {}', {
        inspector: { waitForDebugger: true, suspendDeadline: true },
        signal: controller.signal,
      })
      await new Promise((resolve) => setTimeout(resolve, 300))
      const abortedAt = performance.now()
      controller.abort()
      const timed = await aborted.run
      expectError(timed.result, 'ABORTED')
      const late = performance.now() - abortedAt
      if (late > options.timeoutSlackMs + timed.contendedMs) throw new Error(`the abort took ${Math.round(late)} ms to end a waiting run`)
    },
  },
  {
    group: 'inspector',
    name: 'cpuProfile: a .cpuprofile that parses and names the hot function at the line the user wrote',
    requires: { inspector: true },
    timeoutMs: 60_000,
    async run({ sandbox }) {
      const { result } = await timedRun(sandbox, HOT_PROGRAM, { cpuProfile: { samplingIntervalUs: 200 }, timeoutMs: 20_000 })
      if (expectOk(result) !== true) throw new Error('the profiled program did not finish as written')
      if (result.cpuProfile === undefined) throw new Error('result.cpuProfile is missing')
      const profile = JSON.parse(JSON.stringify(result.cpuProfile)) as CpuProfile
      if (!Array.isArray(profile.samples) || profile.samples.length < 10)
        throw new Error(`the profile has ${profile.samples?.length ?? 0} samples`)
      const fib = hotFunctionFrames(profile, 'fib')
      if (fib.length === 0)
        throw new Error(`no frame of fib in the profile: ${profile.nodes.map((n) => n.callFrame.functionName).join(', ')}`)
      const hits = fib.reduce((sum, node) => sum + (node.hitCount ?? 0), 0)
      if (hits < 5) throw new Error(`fib has ${hits} samples of ${profile.samples?.length ?? 0}`)
      const wrongLine = fib.find((node) => node.callFrame.lineNumber !== 0)
      if (wrongLine !== undefined)
        throw new Error(`fib is placed at line ${wrongLine.callFrame.lineNumber + 1}, expected line 1 (as written)`)
      const plain = await timedRun(sandbox, '1')
      if (plain.result.cpuProfile !== undefined) throw new Error('a run that did not ask for a profile has one')
    },
  },
  {
    group: 'inspector',
    name: 'cpuProfile of a run its deadline or an abort stopped: the profile up to the stop names the hot function',
    requires: { inspector: true },
    timeoutMs: 60_000,
    async run({ sandbox, options }) {
      const spin = `${FIB}\nfor (;;) fib(18)`
      const timeoutMs = 1_000
      const timed = await timedRun(sandbox, spin, { cpuProfile: { samplingIntervalUs: 200 }, timeoutMs })
      expectDeadline(timed, 'TIMEOUT', timeoutMs, options.timeoutSlackMs)
      expectHotFib(timed.result.cpuProfile, 'a run that timed out')
      // The abort comes once the guest has done CPU work in fib, not after wall time: on a loaded
      // machine its thread can get a few milliseconds of half a second (the profile then had 3–4
      // samples in all).
      const controller = new AbortController()
      const tools = { 't.started': { execute: () => void setTimeout(() => controller.abort(), 100) } }
      const aborted = await timedRun(sandbox, `${FIB}\nfor (let i = 0; i < 500; i++) fib(18)\nawait t.started()\nfor (;;) fib(18)`, {
        cpuProfile: { samplingIntervalUs: 200 },
        signal: controller.signal,
        tools,
        timeoutMs: 30_000,
      })
      expectError(aborted.result, 'ABORTED')
      expectHotFib(aborted.result.cpuProfile, 'an aborted run')
    },
  },
  {
    group: 'inspector',
    name: 'cpuProfile of a run beside other runs in flight: the host lives on and each profile names the hot function',
    requires: { inspector: true },
    timeoutMs: 60_000,
    async run({ sandbox }) {
      // An engine that runs an isolate on whichever thread is free (isolated-vm) moves it away from
      // a sampler bound to one thread: such profiles lost the guest's samples, showed other runs'
      // frames, and the host died of SIGPROF or SIGSEGV.
      let busy = true
      const spin = 'const until = Date.now() + 5\nwhile (Date.now() < until) {}\n1'
      const others = Array.from({ length: 2 }, async () => {
        while (busy) expectOk((await timedRun(sandbox, spin)).result)
      })
      try {
        for (let round = 1; round <= 3; round++) {
          const { result } = await timedRun(sandbox, HOT_PROGRAM, { cpuProfile: true, timeoutMs: 20_000 })
          if (expectOk(result) !== true) throw new Error('the profiled program did not finish as written')
          expectHotFib(result.cpuProfile, `profiled run ${round} of 3 beside other runs`)
        }
      } finally {
        busy = false
        await Promise.all(others)
      }
    },
  },
  ...inspectorSessionChecks,
]

/** A profile (as the host would save it) whose samples show `fib`, the program's hot function. */
function expectHotFib(cpuProfile: CpuProfile | undefined, what: string): void {
  if (cpuProfile === undefined) throw new Error(`${what} has no cpuProfile`)
  const profile = JSON.parse(JSON.stringify(cpuProfile)) as CpuProfile
  const hits = hotFunctionFrames(profile, 'fib').reduce((sum, node) => sum + (node.hitCount ?? 0), 0)
  if (hits < 5) throw new Error(`the profile of ${what} has ${hits} samples in fib of ${profile.samples?.length ?? 0}`)
}

/** A WebSocket handshake to `url` must fail (or the port be closed). */
async function expectRefused(url: string, when: string, headers?: Record<string, string>): Promise<void> {
  const { default: WebSocket } = await import('ws')
  const attempt = new Promise<string>((resolve) => {
    const socket = new WebSocket(url, { headers })
    socket.on('open', () => {
      socket.terminate()
      resolve('open')
    })
    socket.on('error', (error) => resolve(error.message))
    socket.on('unexpected-response', (_request, response) => {
      resolve(`HTTP ${response.statusCode}`)
      socket.terminate()
    })
  })
  const outcome = await within(attempt, 10_000, `the debugger socket neither accepted nor refused a connection ${when} within 10 s`)
  if (outcome === 'open') throw new Error(`the debugger socket accepted a connection ${when}`)
}

/**
 * Asks the debugger socket's server to upgrade `path` with Host `host`, waits for its 403 and
 * resets the connection (TCP RST where the runtime can send one, else a plain close). Throws if
 * no refusal came first: then nothing was reset and the check would prove nothing.
 */
async function resetAfterRefusal(url: string, path: string, host: string): Promise<void> {
  const net = await import('node:net')
  const { hostname, port } = new URL(url)
  const socket = net.connect(Number(port), hostname.replace(/^\[|\]$/g, ''))
  const answer = new Promise<string>((resolve) => {
    socket.once('data', (data: Buffer) => {
      if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy()
      else socket.destroy()
      resolve(data.toString('latin1').split('\r\n')[0] ?? '')
    })
    socket.once('error', (error) => resolve(`no answer (${error.message})`))
    socket.once('close', () => resolve('no answer (closed)'))
  })
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      'Sec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\nSec-WebSocket-Version: 13\r\n\r\n',
  )
  const status = await within(answer, 10_000, `the debugger socket did not answer an upgrade of ${path} within 10 s`)
  if (!/^HTTP\/1\.1 403\b/.test(status))
    throw new Error(`an upgrade of ${path} with Host ${host} got ${JSON.stringify(status)}, expected a 403`)
}
