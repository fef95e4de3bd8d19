/**
 * A guest that makes V8 run out of memory in a way isolated-vm cannot contain (a Map or a
 * sparse array growing in one huge step). Without `onCatastrophicError` that aborts the
 * process; with it the process lives on but cannot exit normally, so this runs in a child
 * process that the test kills. It uses the built package (`pnpm build` runs first in CI).
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))
const dist = `${root}dist/index.js`
const coreDist = fileURLToPath(import.meta.resolve('@cordon/core'))

const CHILD = `
import { createSandbox } from ${JSON.stringify(coreDist)}
import { createIvmBackend } from ${JSON.stringify(dist)}
const print = (label, value) => console.log(label + ' ' + JSON.stringify(value))
const sandbox = createSandbox(createIvmBackend(OPTIONS))
const crash = await sandbox.run('const m = new Map()\\nfor (let i = 0; ; i++) m.set(i, { i })', { memoryMb: 16, timeoutMs: 20000 })
print('CRASH', crash.ok ? 'ok' : crash.error)
const after = await sandbox.run('1 + 1')
print('AFTER', after.ok ? 'ok' : after.error.code)
print('END', true)
`

function runChild(mode: 'abort' | 'survive'): Promise<{ lines: string[]; signal: NodeJS.Signals | null; code: number | null }> {
  // A missing build must fail the test, not skip it: the child imports the built package.
  if (!existsSync(dist)) throw new Error(`${dist} is missing: run \`pnpm build\` first`)
  const options = mode === 'survive' ? "{ onCatastrophicError: (message) => print('CALLBACK', message) }" : '{}'
  const source = CHILD.replace('OPTIONS', options)
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', source], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    let out = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), 40_000)
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('END true')) child.kill('SIGKILL')
    })
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      resolve({ lines: out.split('\n').filter(Boolean), signal, code })
    })
  })
}

test('with onCatastrophicError the host survives, the run ends MEMORY_LIMIT and later runs are refused', async () => {
  const { lines } = await runChild('survive')
  const crash = lines.find((line) => line.startsWith('CRASH '))
  expect(crash).toBeDefined()
  // Whether V8 could contain this one depends on the version; both endings are acceptable.
  if (lines.some((line) => line.startsWith('CALLBACK '))) {
    expect(JSON.parse(crash!.slice(6))).toMatchObject({ code: 'MEMORY_LIMIT' })
    expect(lines).toContain('AFTER "BACKEND_CRASHED"')
  } else {
    expect(JSON.parse(crash!.slice(6))).toMatchObject({ code: 'MEMORY_LIMIT' })
    expect(lines).toContain('AFTER "ok"')
  }
}, 60_000)

test('without onCatastrophicError such a guest ends the process or, where V8 contains it, its run', async () => {
  const { lines, signal } = await runChild('abort')
  const crash = lines.find((line) => line.startsWith('CRASH '))
  if (crash === undefined) expect(signal).toBe('SIGABRT')
  else expect(JSON.parse(crash.slice(6))).toMatchObject({ code: 'MEMORY_LIMIT' })
}, 60_000)
