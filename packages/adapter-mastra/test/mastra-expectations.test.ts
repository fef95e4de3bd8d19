/**
 * The expectations of Mastra's own code-mode end-to-end tests
 * (mastra-ai/mastra packages/core/src/tools/code-mode/code-mode.e2e.test.ts, which run its stdio
 * transport in a LocalSandbox), held against this transport on every backend. Where cordon
 * differs on purpose the test says so and checks cordon's behaviour instead.
 */
import { createSandbox, type Sandbox } from '@cordon/core'
import { createIvmBackend } from '@cordon/backend-ivm'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
import { createSubprocessBackend } from '@cordon/backend-subprocess'
import type { SandboxBackend } from '@cordon/core/backend'
import { createCodeMode, createTool, noopObserve, type CodeModeToolResult } from '@mastra/core/tools'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { createCordonCodeModeTransport, type CordonCodeModeTransport } from '../src/index.js'

const BACKENDS: [string, () => SandboxBackend][] = [
  ['ivm', () => createIvmBackend()],
  ['quickjs', () => createQuickJSBackend()],
  ['subprocess', () => createSubprocessBackend()],
]

const products = createTool({
  id: 'topProducts',
  description: 'The best sellers',
  inputSchema: z.object({ count: z.number() }),
  outputSchema: z.object({ items: z.array(z.object({ id: z.string(), sales: z.number() })) }),
  execute: async ({ count }) => ({ items: Array.from({ length: count }, (_, i) => ({ id: `p${i}`, sales: (i + 1) * 10 })) }),
})

const ratings = createTool({
  id: 'ratings',
  description: 'The ratings of a product',
  inputSchema: z.object({ id: z.string() }),
  outputSchema: z.object({ scores: z.array(z.number()) }),
  execute: async ({ id }) => ({ scores: [Number(id.slice(1)) + 1, 3] }),
})

type CodeModeTool = ReturnType<typeof createCodeMode>['tool']

async function execute(tool: CodeModeTool, code: string): Promise<CodeModeToolResult> {
  if (tool.execute === undefined) throw new Error('createCodeMode made a tool without execute')
  return (await tool.execute({ code }, { observe: noopObserve })) as CodeModeToolResult
}

const MiB = 1024 * 1024

describe.each(BACKENDS)("Mastra's code-mode expectations on %s", (_, backend) => {
  let sandbox: Sandbox
  let transport: CordonCodeModeTransport

  beforeAll(() => {
    sandbox = createSandbox(backend())
    transport = createCordonCodeModeTransport({ sandbox })
  })
  afterAll(async () => {
    await transport.dispose()
    await sandbox.dispose()
  })

  it('folds a list-then-detail task into one program with the arithmetic done in code', async () => {
    const { tool } = createCodeMode({ tools: { products, ratings } }, transport)
    const output = await execute(
      tool,
      [
        'const top = await external_topProducts({ count: 3 })',
        'const all = await Promise.all(top.items.map((p) => external_ratings({ id: p.id })))',
        "console.log('rated', all.length, 'products')",
        'return top.items.map((p, i) => ({ id: p.id, sales: p.sales, mean: all[i].scores.reduce((a, b) => a + b, 0) / 2 }))',
      ].join('\n'),
    )
    expect(output.success).toBe(true)
    expect(output.logs).toContain('rated 3 products')
    expect(output.result).toEqual([
      { id: 'p0', sales: 10, mean: 2 },
      { id: 'p1', sales: 20, mean: 2.5 },
      { id: 'p2', sales: 30, mean: 3 },
    ])
  })

  it('calls the real Mastra tool, whose input validation refuses bad arguments', async () => {
    const spy = vi.fn(async ({ count }: { count: number }) => ({
      items: Array.from({ length: count }, (_, i) => ({ id: `p${i}`, sales: i })),
    }))
    const spied = createTool({ id: 'topProducts', description: 'x', inputSchema: z.object({ count: z.number() }), execute: spy })
    const { tool } = createCodeMode({ tools: { topProducts: spied } }, transport)
    expect(await execute(tool, 'return (await external_topProducts({ count: 2 })).items.length')).toMatchObject({
      success: true,
      result: 2,
    })
    expect(spy).toHaveBeenCalledWith({ count: 2 }, expect.anything())
    const bad = await execute(tool, "return await external_topProducts({ count: 'two' })")
    expect(bad.success).toBe(false)
    expect(bad.error?.message).toBeTruthy()
  })

  it('reports what the program threw', async () => {
    const { tool } = createCodeMode({ tools: { products } }, transport)
    expect(await execute(tool, "throw new Error('boom')")).toMatchObject({ success: false, error: { message: 'boom' } })
  })

  it('returns a 1 MiB error message whole', async () => {
    const { tool } = createCodeMode({ tools: { products } }, transport)
    const output = await execute(tool, `throw new Error('x'.repeat(${MiB}))`)
    expect(output.success).toBe(false)
    expect(output.error?.message).toBe('x'.repeat(MiB))
  })

  it('returns a 1 MiB result under a raised maxOutputBytes (differs: cordon caps results at 1 MiB by default)', async () => {
    const { tool } = createCodeMode({ tools: { products } }, transport)
    const code = `return 'x'.repeat(${MiB})`
    // Mastra returns it; cordon's default maxOutputBytes (1 MiB of JSON, quotes included) refuses it.
    expect(await execute(tool, code)).toMatchObject({ success: false, error: { name: 'OutputLimitError' } })
    const roomy = createSandbox(backend(), { maxOutputBytes: 4 * MiB })
    const wide = createCodeMode({ tools: { products } }, createCordonCodeModeTransport({ sandbox: roomy }))
    expect(await execute(wide.tool, code)).toEqual({ success: true, result: 'x'.repeat(MiB), logs: [] })
    await roomy.dispose()
  })

  it('has no external_ function for a tool that is not allow-listed', async () => {
    const output = await transport.run({
      program: 'return await external_secret({})',
      toolIds: ['known'],
      dispatch: async () => ({ ok: true }),
      timeout: 15_000,
    })
    expect(output.success).toBe(false)
    expect(output.error?.message).toMatch(/external_secret/)
  })

  it('times out a program that waits longer than the timeout', async () => {
    const { tool } = createCodeMode({ tools: { products }, timeout: 500 }, transport)
    const output = await execute(tool, 'await new Promise((r) => setTimeout(r, 10000)); return 1')
    expect(output).toMatchObject({ success: false, error: { name: 'TimeoutError' } })
  })

  it('runs without a sandbox (differs: Mastra refuses, as its transport needs one)', async () => {
    const { tool } = createCodeMode({ tools: { products } }, transport)
    expect(await execute(tool, 'return 1')).toEqual({ success: true, result: 1, logs: [] })
  })
})
