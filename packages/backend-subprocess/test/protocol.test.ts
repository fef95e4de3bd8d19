/**
 * A child is hostile once its guest escapes: these runs forge frames on the child's stdout
 * (through the test-only escape switch) and check that the host gives them nothing extra.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Sandbox } from '@cordon/core'
import { FORGE, errorOf, open } from './helpers.js'

let sandbox: Sandbox

beforeAll(async () => {
  ;({ sandbox } = await open({ poolSize: 3 }, { exposeProcess: true }))
})
afterAll(async () => {
  await sandbox.dispose()
})

const forged = (body: string, options: Parameters<Sandbox['run']>[1] = {}) =>
  sandbox.run(`${FORGE}\n${body}\nawait new Promise((resolve) => setTimeout(resolve, 3600000))`, { timeoutMs: 5_000, ...options })

describe('forged or malformed frames from the child', () => {
  it('bytes that are not a frame kill the child: BACKEND_CRASHED', async () => {
    const error = errorOf(await forged("raw('hello, host')"))
    expect(error.code).toBe('BACKEND_CRASHED')
    expect(error.message).toMatch(/over the cap/)
  })

  it('a header announcing a huge frame is refused before anything is buffered', async () => {
    const error = errorOf(await forged('raw([0x7f, 0xff, 0xff, 0xff])'))
    expect(error.code).toBe('BACKEND_CRASHED')
  })

  it('a frame that is not JSON, or not a known message, is refused', async () => {
    expect(
      errorOf(
        await forged(
          "const body = B.from('{nope'); const h = B.alloc(8); h.writeUInt32BE(body.length + 4, 0); h.writeUInt32BE(body.length, 4); raw(B.concat([h, body]))",
        ),
      ).code,
    ).toBe('BACKEND_CRASHED')
    expect(errorOf(await forged("send(['settle', 1, true, '1'])")).code).toBe('BACKEND_CRASHED')
    expect(errorOf(await forged("send(['ready'])")).code).toBe('BACKEND_CRASHED')
    expect(errorOf(await forged("send(['limit', 'OUTPUT_LIMIT', 'x'])")).code).toBe('BACKEND_CRASHED')
    expect(errorOf(await forged("send(['log', 'shout', 'x'])")).code).toBe('BACKEND_CRASHED')
    expect(errorOf(await forged("send(['log', 's1:x'])")).code).toBe('BACKEND_CRASHED')
    expect(errorOf(await forged("send(['log', 'l9:x'])")).code).toBe('BACKEND_CRASHED')
  })

  it('a call of a tool the run does not have is refused, and no tool runs', async () => {
    let calls = 0
    const tools = { 'ok.tool': { execute: () => calls++ } }
    const error = errorOf(await forged("send(['call', 1, 'other.tool', '1'])", { tools }))
    expect(error.code).toBe('BACKEND_CRASHED')
    expect(calls).toBe(0)
  })

  it('a reused call id is refused', async () => {
    let calls = 0
    const tools = { 'ok.tool': { execute: () => calls++ } }
    const error = errorOf(await forged("send(['call', 7, 'ok.tool', '1'])\nsend(['call', 7, 'ok.tool', '1'])", { tools }))
    expect(error.code).toBe('BACKEND_CRASHED')
    expect(calls).toBeLessThanOrEqual(1)
  })

  it('forged calls still count against maxToolCalls', async () => {
    let calls = 0
    const tools = { 'ok.tool': { execute: () => calls++ } }
    const body = "for (let i = 100; i < 120; i++) send(['call', i, 'ok.tool', '1'])"
    const error = errorOf(await forged(body, { tools, maxToolCalls: 3 }))
    expect(error.code).toBe('TOOL_CALL_LIMIT')
    expect(calls).toBeLessThanOrEqual(3)
  })

  it('a flood of log frames keeps at most maxLogEntries and kills the child', async () => {
    const result = await forged("for (let i = 0; i < 5000; i++) send(['log', 'l' + ('spam ' + i).length + ':spam ' + i])", {
      maxLogEntries: 5,
    })
    expect(errorOf(result).code).toBe('BACKEND_CRASHED')
    expect(result.logs.length).toBeLessThanOrEqual(5)
  })

  it('a forged result is checked like any result', async () => {
    const big = await forged("send(['done', 'ok', JSON.stringify('x'.repeat(5000)), 0, 1, 1])", { maxOutputBytes: 100 })
    expect(errorOf(big).code).toMatch(/^(OUTPUT_LIMIT|BACKEND_CRASHED)$/)
    const garbled = await forged("send(['done', 'ok', '{not wire', 0, 1, 1])")
    expect(errorOf(garbled).code).toBe('BACKEND_CRASHED')
    const wrongShape = await forged("send(['done', 'ok', '1', -5, 'lots', 1])")
    expect(errorOf(wrongShape).code).toBe('BACKEND_CRASHED')
  })

  it('the pool is healthy afterwards', async () => {
    const result = await sandbox.run('return 40 + 2')
    expect(result.ok && result.value).toBe(42)
  })
})
