/**
 * Durable runs across engines and processes: a run paused on one backend resumes on any other
 * (the continuation holds no engine state), and in a new Node process that never saw the run.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { createSandbox, type RunResult, type Sandbox, type ToolSet } from '@cordon/core'
import { createIvmBackend } from '@cordon/backend-ivm'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
import { createSubprocessBackend } from '@cordon/backend-subprocess'
import { BACKEND_NAMES, type BackendName } from './support/backends.js'

const KEY = 'cross-backend-durable-key-0123456789abcdef'
const durable = { keys: [KEY] }
const sandboxes: Record<BackendName, Sandbox> = {
  ivm: createSandbox(createIvmBackend(), { durable }),
  quickjs: createSandbox(createQuickJSBackend(), { durable }),
  'quickjs-inline': createSandbox(createQuickJSBackend({ thread: 'inline' }), { durable }),
  subprocess: createSandbox(createSubprocessBackend(), { durable }),
  'subprocess-quickjs': createSandbox(createSubprocessBackend({ engine: 'quickjs' }), { durable }),
  'subprocess-node-vm': createSandbox(createSubprocessBackend({ engine: 'node-vm' }), { durable }),
}
afterAll(() => Promise.all(BACKEND_NAMES.map((name) => sandboxes[name].dispose())))

function countedTools() {
  const calls: Record<string, number> = {}
  const count = (name: string) => (calls[name] = (calls[name] ?? 0) + 1)
  const tools: ToolSet = {
    'inventory.reserve': { execute: (args: { sku: string }) => (count('inventory.reserve'), { reserved: args.sku }) },
    'ask.human': { execute: (question, ctx) => (count('ask.human'), ctx.interrupt({ question })) },
  }
  return { tools, calls }
}

// Reads the clock and randomness before and after the pause, so a resume elsewhere must agree on both.
const PROGRAM = `
  const first = await inventory.reserve({ sku: 'A-1' })
  const drawn = [Date.now(), Math.random()]
  await new Promise((resolve) => setTimeout(resolve, 25))
  const answer = await ask.human('ship ' + first.reserved + '?')
  const second = await inventory.reserve({ sku: 'B-2' })
  return { first, drawn, answer, second, after: [Date.now() - drawn[0], Math.random()] }`

function continuationOf(result: RunResult): string {
  if (!result.interrupted) throw new Error(`expected a pause, got ${JSON.stringify(result)}`)
  return result.continuation
}

describe('a run paused on one backend resumes on every backend with the same result', () => {
  for (const pausedOn of BACKEND_NAMES) {
    it(`paused on ${pausedOn}`, async () => {
      const { tools, calls } = countedTools()
      const continuation = continuationOf(await sandboxes[pausedOn].run(PROGRAM, { tools }))
      const values = []
      for (const resumedOn of BACKEND_NAMES) {
        const result = await sandboxes[resumedOn].resume(continuation, { answer: `yes from ${pausedOn}`, tools })
        if (!result.ok) throw new Error(`resumed on ${resumedOn}: ${JSON.stringify(result)}`)
        values.push(result.value)
      }
      for (const value of values) expect(value).toEqual(values[0])
      expect(values[0]).toMatchObject({ first: { reserved: 'A-1' }, second: { reserved: 'B-2' }, after: [25, expect.any(Number)] })
      // One reservation before the pause, and one after it per resume: the recorded one never again.
      expect(calls).toEqual({ 'inventory.reserve': 1 + BACKEND_NAMES.length, 'ask.human': 1 })
    })
  }
})

describe('a fresh process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cordon-durable-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('resumes a continuation written by this one, calling only the tools after the pause', async () => {
    const { tools, calls } = countedTools()
    const paused = await sandboxes.ivm.run(PROGRAM, { tools })
    const file = join(dir, 'continuation.txt')
    writeFileSync(file, continuationOf(paused))
    const child = fileURLToPath(new URL('./support/resume-child.mjs', import.meta.url))
    const { stdout } = await promisify(execFile)(process.execPath, [child, file], {
      env: { ...process.env, CORDON_TEST_DURABLE_KEY: KEY },
      timeout: 30_000,
    })
    const { result, calls: childCalls } = JSON.parse(stdout) as { result: RunResult; calls: Record<string, number> }
    expect(result).toMatchObject({ ok: true, value: { answer: 'approved in another process', second: { reserved: 'B-2' } } })
    expect(childCalls).toEqual({ 'inventory.reserve': 1 })
    expect(calls).toEqual({ 'inventory.reserve': 1, 'ask.human': 1 })
    // The same continuation resumed here gives the same value: nothing depended on the process.
    const here = await sandboxes.quickjs.resume(continuationOf(paused), { answer: 'approved in another process', tools })
    expect(here.ok && here.value).toEqual(result.ok && result.value)
  })

  it('refuses a continuation whose key it does not hold', async () => {
    const { tools } = countedTools()
    const file = join(dir, 'foreign.txt')
    writeFileSync(file, continuationOf(await sandboxes.quickjs.run(PROGRAM, { tools })))
    const child = fileURLToPath(new URL('./support/resume-child.mjs', import.meta.url))
    const failed = await promisify(execFile)(process.execPath, [child, file], {
      env: { ...process.env, CORDON_TEST_DURABLE_KEY: 'some-other-key-of-at-least-32-bytes!!' },
      timeout: 30_000,
    }).then(
      () => undefined,
      (error: { stderr: string }) => error.stderr,
    )
    expect(failed).toMatch(/INVALID_CONTINUATION|signature matches none of the keys/)
  })
})
