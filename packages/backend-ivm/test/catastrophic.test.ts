/**
 * A guest that makes V8 run out of memory in a way isolated-vm cannot contain. isolated-vm then
 * parks the isolate's thread for good instead of aborting the process (the backend always
 * registers its handler), and a process holding a parked thread cannot exit by itself: so each
 * case runs in a child process that the test kills once it has printed everything. It uses the
 * built package (`pnpm build` runs first in CI).
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))
const dist = `${root}dist/index.js`
const coreDist = fileURLToPath(import.meta.resolve('@cordon/core'))

/**
 * `toSorted` asks V8 for a work array of the length its getter reports, which V8 cannot provide
 * and reports as a fatal out-of-memory error: on Node 20, 24 and 26 alike, within milliseconds.
 * (A plain `length` is refused up front by the backend's guards; a getter is read only once.)
 */
const LOST = 'Array.prototype.toSorted.call({ get length() { return 1e9 } })'

const PRELUDE = `
import { createSandbox } from ${JSON.stringify(coreDist)}
import { createIvmBackend } from ${JSON.stringify(dist)}
const print = (label, value) => console.log(label + ' ' + JSON.stringify(value))
const outcome = (r) => (r.ok ? { ok: r.value } : { code: r.error.code, message: r.error.message })
let ticks = 0
setInterval(() => ticks++, 5)
const LOST = ${JSON.stringify(LOST)}
`

function runChild(body: string): Promise<string[]> {
  // A missing build must fail the test, not skip it: the child imports the built package.
  if (!existsSync(dist)) throw new Error(`${dist} is missing: run \`pnpm build\` first`)
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', `${PRELUDE}\n${body}\nprint('END', true)`], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    let out = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), 40_000)
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('END true')) child.kill('SIGKILL')
    })
    child.on('exit', () => {
      clearTimeout(timer)
      resolve(out.split('\n').filter(Boolean))
    })
  })
}

function printed(lines: string[], label: string): unknown {
  const line = lines.find((l) => l.startsWith(`${label} `))
  if (line === undefined) throw new Error(`the child printed no ${label} line: ${lines.join(' | ')}`)
  return JSON.parse(line.slice(label.length + 1))
}

test('by default the host survives: the run ends MEMORY_LIMIT, a run in another isolate finishes, later runs work', async () => {
  const lines = await runChild(`
const sandbox = createSandbox(createIvmBackend())
const wait = { execute: () => new Promise((resolve) => setTimeout(() => resolve('waited'), 300)) }
const other = sandbox.run('const w = await wait()\\nreturn w + " " + [1, 2, 3].map((n) => n * 2).join()', { tools: { wait } })
const lost = await sandbox.run(LOST, { memoryMb: 16 })
print('LOST', outcome(lost))
print('OTHER', outcome(await other))
const before = ticks
print('NEXT', outcome(await sandbox.run('const xs = []\\nfor (let i = 0; i < 1e5; i++) xs.push({ i })\\nreturn xs.length', { memoryMb: 16 })))
await new Promise((resolve) => setTimeout(resolve, 50))
print('TICKING', ticks > before)
`)
  expect(printed(lines, 'LOST')).toMatchObject({ code: 'MEMORY_LIMIT', message: expect.stringMatching(/memoryMb \(16 MB\).*Catastrophic/) })
  expect(printed(lines, 'OTHER')).toEqual({ ok: 'waited 2,4,6' })
  expect(printed(lines, 'NEXT')).toEqual({ ok: 1e5 })
  expect(printed(lines, 'TICKING')).toBe(true)
}, 60_000)

test('a session whose isolate is lost ends MEMORY_LIMIT; the sandbox opens new sessions', async () => {
  const lines = await runChild(`
const sandbox = createSandbox(createIvmBackend())
const session = await sandbox.createSession({ memoryMb: 16 })
await session.run('globalThis.kept = 1')
print('LOST', outcome(await session.run(LOST)))
print('ENDED', session.ended?.code)
const next = await sandbox.createSession({ memoryMb: 16 })
print('NEXT', outcome(await next.run('1 + 1')))
`)
  expect(printed(lines, 'LOST')).toMatchObject({ code: 'MEMORY_LIMIT' })
  expect(printed(lines, 'ENDED')).toBe('MEMORY_LIMIT')
  expect(printed(lines, 'NEXT')).toEqual({ ok: 2 })
}, 60_000)

test('past maxLostIsolates the backend reports BACKEND_UNAVAILABLE with the reason; onCatastrophicError hears of each loss', async () => {
  const lines = await runChild(`
const heard = []
const sandbox = createSandbox(createIvmBackend({ maxLostIsolates: 1, onCatastrophicError: (message) => heard.push(message) }))
print('FIRST', outcome(await sandbox.run(LOST, { memoryMb: 16 })))
print('BETWEEN', outcome(await sandbox.run('1 + 1')))
print('SECOND', outcome(await sandbox.run(LOST, { memoryMb: 16 })))
print('AFTER', outcome(await sandbox.run('1 + 1')))
// Counted per process: a new backend refuses too.
print('NEW', outcome(await createSandbox(createIvmBackend({ maxLostIsolates: 1 })).run('1 + 1')))
print('OTHER BUDGET', outcome(await createSandbox(createIvmBackend({ maxLostIsolates: 2 })).run('1 + 1')))
await new Promise((resolve) => setTimeout(resolve, 20))
print('HEARD', heard)
`)
  expect(printed(lines, 'FIRST')).toMatchObject({ code: 'MEMORY_LIMIT' })
  expect(printed(lines, 'BETWEEN')).toEqual({ ok: 2 })
  expect(printed(lines, 'SECOND')).toMatchObject({ code: 'MEMORY_LIMIT' })
  const after = printed(lines, 'AFTER') as { code: string; message: string }
  expect(after.code).toBe('BACKEND_UNAVAILABLE')
  expect(after.message).toMatch(/lost 2 isolates.*maxLostIsolates \(1\).*Restart the process/)
  expect(printed(lines, 'NEW')).toMatchObject({ code: 'BACKEND_UNAVAILABLE' })
  expect(printed(lines, 'OTHER BUDGET')).toEqual({ ok: 2 })
  expect(printed(lines, 'HEARD')).toEqual(['Catastrophic out-of-memory error', 'Catastrophic out-of-memory error'])
}, 60_000)

test('maxLostIsolates: 0 stops at the first loss', async () => {
  const lines = await runChild(`
const sandbox = createSandbox(createIvmBackend({ maxLostIsolates: 0 }))
print('LOST', outcome(await sandbox.run(LOST, { memoryMb: 16 })))
print('AFTER', outcome(await sandbox.run('1 + 1')))
`)
  expect(printed(lines, 'LOST')).toMatchObject({ code: 'MEMORY_LIMIT' })
  expect(printed(lines, 'AFTER')).toMatchObject({ code: 'BACKEND_UNAVAILABLE', message: expect.stringMatching(/lost 1 isolate /) })
}, 60_000)
