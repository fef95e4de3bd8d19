/**
 * The child's side of the protocol, driven directly: a one-off child runs one program and
 * nothing else; a session child takes runs one after another only after `session`, and
 * answers `usage` only between them. Any other order ends the child.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { GUEST_RUNTIME_SOURCE, PRIMORDIALS_SOURCE } from '@cordon/core/backend'
import { beforeAll, describe, expect, it } from 'vitest'
import { FrameReader, encodeFrame } from '../src/framing.js'
import { createSubprocessBackend } from '../src/index.js'
import { waitFor } from './helpers.js'

const entry = fileURLToPath(new URL('../dist/child.js', import.meta.url))
const setup = '{"tools":[],"limits":{"maxOutputBytes":1024,"maxLogEntries":10,"maxLogBytes":100},"globals":null}'
const job = (body: string, ms = 5_000) => ({
  setup,
  script: `(async function () {\n${body}\n})`,
  filename: 'guest.js',
  deadline: Date.now() + ms,
  memoryBytes: 1e8,
  maxErrorChars: 1000,
})
let permissionFlag: string

beforeAll(async () => {
  permissionFlag = (await createSubprocessBackend({ engine: 'node-vm' }).diagnose()).permissionFlag!
})

/** A child started with no launch wrappers, initialized and ready. */
async function bareChild() {
  const child = spawn(process.execPath, [permissionFlag, `--allow-fs-read=${entry}`, '--no-warnings', entry], {
    stdio: ['pipe', 'pipe', 'ignore'],
    env: {},
  })
  const frames: unknown[][] = []
  const reader = new FrameReader(1 << 20, { frame: (message) => frames.push(message), violation: () => frames.push(['bad frame']) })
  child.stdout.on('data', (chunk: Buffer) => reader.push(chunk))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const send = (message: unknown[]) => child.stdin.write(encodeFrame(message))
  const kinds = () => frames.map((frame) => frame[0])
  send(['init', { runtime: GUEST_RUNTIME_SOURCE, primordials: PRIMORDIALS_SOURCE, exposeProcess: false }])
  expect(await waitFor(() => kinds().includes('ready'), 10_000)).toBe(true)
  return { child, frames, kinds, exited, send }
}

describe('the child protocol', () => {
  it('a one-off child refuses a second run, a usage query, and session mode after its run', async () => {
    for (const next of [['run', job('return 2')], ['usage'], ['session']]) {
      const bare = await bareChild()
      bare.send(['run', job('return 1')])
      expect(await waitFor(() => bare.kinds().includes('done'), 5_000)).toBe(true)
      bare.send(next)
      expect(await bare.exited).not.toBe(0)
      expect(bare.kinds().filter((kind) => kind === 'done' || kind === 'usage')).toEqual(['done'])
    }
  })

  it('a session child runs one program after another in one context and reports its heap between runs', async () => {
    const bare = await bareChild()
    bare.send(['session'])
    bare.send(['run', job('globalThis.kept = 41\nreturn 1')])
    expect(await waitFor(() => bare.kinds().includes('done'), 5_000)).toBe(true)
    bare.send(['usage'])
    expect(await waitFor(() => bare.kinds().includes('usage'), 5_000)).toBe(true)
    bare.send(['run', job('return kept + 1')])
    expect(await waitFor(() => bare.kinds().filter((kind) => kind === 'done').length === 2, 5_000)).toBe(true)
    const [first, second] = bare.frames.filter((frame) => frame[0] === 'done')
    expect([first![1], second![1]]).toEqual(['ok', 'ok'])
    expect(second![2]).toContain('42')
    bare.child.kill('SIGKILL')
    await bare.exited
  })

  it('a session child refuses a run or a usage query while a run is going', async () => {
    for (const next of [['run', job('return 2')], ['usage']]) {
      const bare = await bareChild()
      bare.send(['session'])
      bare.send(['run', job('await new Promise((resolve) => setTimeout(resolve, 3000))\nreturn 1')])
      await new Promise((resolve) => setTimeout(resolve, 100))
      bare.send(next)
      expect(await bare.exited).not.toBe(0)
      expect(bare.kinds()).not.toContain('done')
      expect(bare.kinds()).not.toContain('usage')
    }
  })

  it('a session child stops a run at its deadline and ends itself', async () => {
    const bare = await bareChild()
    bare.send(['session'])
    bare.send(['run', job('return 1')])
    expect(await waitFor(() => bare.kinds().includes('done'), 5_000)).toBe(true)
    bare.send(['run', job('for (;;) {}', 300)])
    expect(await bare.exited).toBe(0)
    expect(bare.frames.at(-1)).toEqual(['limit', 'TIMEOUT', 'the guest ran past its deadline'])
  })
})
