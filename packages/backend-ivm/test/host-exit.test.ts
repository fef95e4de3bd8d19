/**
 * A host that ends abruptly (an uncaught exception, process.exit) right after a run must
 * still exit. A guest thread parked on a synchronous callback into the host used to
 * deadlock isolated-vm's exit handler: a tool-call flood stopped by maxToolCalls left the
 * process hanging forever. The same holds with sessions open (idle, or a run awaiting a tool).
 * Runs the built package in a child process (`pnpm build` first).
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'
import { createIvmBackend } from '../src/index.js'

const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url))
const coreDist = fileURLToPath(import.meta.resolve('@cordon/core'))
const NODE_MAJOR = Number(process.versions.node.split('.')[0])

const ENDINGS = {
  'an uncaught exception': "throw new Error('host gives up')",
  'process.exit()': 'process.exit(3)',
}
const STOPS: Record<string, [guest: string, options: string, expected: string]> = {
  'a tool-call flood over maxToolCalls': ['for (let i = 0; ; i++) await host.echo(i)', '{ maxToolCalls: 50 }', 'TOOL_CALL_LIMIT'],
  'a log flood past the deadline': ["while (true) console.log('x')", '{ timeoutMs: 200 }', 'TIMEOUT'],
  // Each line is too long for the shared log buffer, so nearly every call waits in a synchronous
  // flush: the deadline finds the guest's thread parked on the host's.
  'a flood of long log lines past the deadline': [
    "while (true) console.log('x'.repeat(50000))",
    '{ timeoutMs: 200, maxLogEntries: 1000000, maxLogBytes: 64 * 1024 * 1024 }',
    'TIMEOUT',
  ],
  'a tool that never answers': ['await host.never()', '{ timeoutMs: 200 }', 'TIMEOUT'],
}

/**
 * In session mode the stopped run is a session's (after a run that used a tool), and the host
 * also leaves an idle session and a session whose run awaits a tool open when it ends.
 */
function runHost(
  guest: string,
  options: string,
  ending: string,
  sessions = false,
): Promise<{ out: string; code: number | null; signal: string | null; err: string; ms: number }> {
  const run = sessions
    ? `
const session = await sandbox.createSession({ tools })
await session.run('const first = await host.echo(1)')
const idle = await sandbox.createSession({ tools })
await idle.run('let kept = await host.echo(2)')
const waiting = await sandbox.createSession({ tools, timeoutMs: 60000 })
void waiting.run('await host.never()')
const r = await session.run(${JSON.stringify(guest)}, ${options})`
    : `const r = await sandbox.run(${JSON.stringify(guest)}, { ...${options}, tools })`
  const source = `
import { createSandbox } from ${JSON.stringify(coreDist)}
import { createIvmBackend } from ${JSON.stringify(dist)}
const sandbox = createSandbox(createIvmBackend())
const tools = { 'host.echo': { execute: (i) => i }, 'host.never': { execute: () => new Promise(() => {}) } }
${run}
console.log('CODE ' + (r.ok ? 'ok' : r.error.code))
${ending}
`
  return runScript(source)
}

/** Runs an ES module in a fresh Node (as isolated-vm needs it); SIGKILL after 15 s means it hung. */
function runScript(source: string): Promise<{ out: string; code: number | null; signal: string | null; err: string; ms: number }> {
  const started = Date.now()
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', source], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    // The end of stderr, for a failure's message: how a process that did not exit as expected ended.
    child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-2_000)))
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      resolve({ out, code, signal, err, ms: Date.now() - started })
    })
  })
}

for (const sessions of [false, true]) {
  for (const [stopName, [guest, options, expected]] of Object.entries(STOPS)) {
    for (const [endingName, ending] of Object.entries(ENDINGS)) {
      const where = sessions ? ' in a session, with other sessions open' : ''
      test(`the host exits on ${endingName} after ${stopName}${where}`, async () => {
        const { out, code, signal, err, ms } = await runHost(guest, options, ending, sessions)
        expect(out).toContain(`CODE ${expected}`)
        // Killed by the test's 15 s guard means it hung: code is null then, signal SIGKILL.
        const ended = `code ${code}, signal ${signal}, after ${ms} ms; stderr ends: ${err.slice(-1_000)}`
        // The README's known issue: isolated-vm 7 on Node 26 may end an exiting host with SIGSEGV
        // during its teardown (live-isolates.ts disposes every isolate at 'exit' against it). The
        // host did exit, promptly; a hang (the guard's SIGKILL) or any other end still fails.
        if (NODE_MAJOR >= 26 && signal === 'SIGSEGV') {
          console.warn(`the host exited by SIGSEGV on Node ${process.versions.node} (the README's known issue): ${ended}`)
          return
        }
        expect(code, ended).toBe(endingName === 'process.exit()' ? 3 : 1)
      }, 20_000)
    }
  }
}

// A profiled run used to leave its inspector session connected when the result came back: the
// host's exit then deadlocked isolated-vm's teardown.
// Where the engine has no inspector (Node 26), such runs end UNSUPPORTED: nothing to exit after.
const inspectable = createIvmBackend({ inspector: true }).capabilities.inspector === true
test.runIf(inspectable)(
  'the host exits on process.exit() right after a profiled run and a profiled session run',
  async () => {
    const source = `
import { createSandbox } from ${JSON.stringify(coreDist)}
import { createIvmBackend } from ${JSON.stringify(dist)}
const sandbox = createSandbox(createIvmBackend({ inspector: true }))
const hot = 'let n = 0; const until = Date.now() + 50; while (Date.now() < until) n++; n > 0'
const single = await sandbox.run(hot, { cpuProfile: true })
const session = await sandbox.createSession({ cpuProfile: true })
const kept = await session.run(hot)
console.log('CODE ' + [single, kept].map((r) => (r.ok ? (r.cpuProfile === undefined ? 'no profile' : 'ok') : r.error.code)).join(' '))
process.exit(3)
`
    const { out, code, signal, err, ms } = await runScript(source)
    expect(out).toContain('CODE ok ok')
    expect(code, `code ${code}, signal ${signal}, after ${ms} ms; stderr ends: ${err.slice(-1_000)}`).toBe(3)
  },
  20_000,
)
