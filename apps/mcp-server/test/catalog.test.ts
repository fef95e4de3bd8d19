import { createSandbox, resolveLimits } from '@cordon/core'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
import { afterAll, describe, expect, it } from 'vitest'
import { checkTools } from '../src/check-tools.js'
import { declarationsFor } from '../src/declarations.js'
import type { GuestNamespace, GuestTool } from '../src/guest-catalog.js'
import { INLINE_DECLARATIONS_CHARS, runToolDescription } from '../src/tool-description.js'
import type { Upstream } from '../src/upstream.js'

// What an upstream may list that cordon or TypeScript cannot take as it is, checked without
// starting processes: a real sandbox, namespaces built by hand.

const sandbox = createSandbox(createQuickJSBackend())
afterAll(() => sandbox.dispose())

const unusedUpstream = {} as Upstream
const tool = (guestName: string, inputSchema: Record<string, unknown> = { type: 'object' }): GuestTool => ({
  guestName,
  upstreamName: guestName,
  inputSchema,
})
const namespace = (name: string, tools: GuestTool[]): GuestNamespace => ({ name, info: undefined, upstream: unusedUpstream, tools })

describe('tools cordon refuses', () => {
  it('are left out one by one, and a namespace that shadows a built-in as a whole', async () => {
    const good = namespace('store', [tool('list'), tool('broken', { type: 'object', properties: { id: { $ref: '#/nowhere' } } })])
    const { accepted, refused } = await checkTools(sandbox, [good, namespace('Math', [tool('add')]), namespace('notes', [tool('read')])])
    expect(accepted.map((ns) => [ns.name, ns.tools.map((t) => t.guestName)])).toEqual([
      ['store', ['list']],
      ['notes', ['read']],
    ])
    expect(refused).toEqual([
      { label: 'store.broken', reason: expect.stringContaining('inputSchema is not a valid JSON Schema') },
      { label: 'Math', reason: expect.stringContaining('would replace the guest\'s built-in "Math"') },
    ])
  })
})

describe('declarations', () => {
  it('fall back to an object type for a schema TypeScript cannot be generated from', async () => {
    const { all: text } = await declarationsFor([
      namespace('files', [tool('read', { type: 'object', properties: { path: { $ref: 'https://example.com/path.json' } } })]),
    ])
    expect(text).toContain('function read(args: Record<string, unknown>): Promise<unknown>;')
  })
})

describe('the run_javascript description', () => {
  it('lists tools by name and points to get_declarations when the declarations are long', () => {
    const tools = Array.from({ length: 3 }, (_, i) => ({ ...tool(`tool${i}`), description: `Does thing ${i}.\nMore detail.` }))
    const description = runToolDescription({
      namespaces: [namespace('big', tools)],
      declarations: 'x'.repeat(INLINE_DECLARATIONS_CHARS + 1),
      ceilings: resolveLimits(),
      unavailable: [{ name: 'github', reason: 'the command "gh-mcp" was not found' }],
      refused: [],
    })
    expect(description).toContain('call get_declarations')
    expect(description).toContain('- big.tool1: Does thing 1.')
    expect(description).not.toContain('More detail.')
    expect(description).toContain('- github: its server failed to start (the command "gh-mcp" was not found)')
    expect(description).toContain('Limits per call: 30000 ms, 128 MB of memory, 100 tool calls')
  })
})
