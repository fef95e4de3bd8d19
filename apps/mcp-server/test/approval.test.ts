import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { callTool, connect, DEMO_UPSTREAM, runJavaScript, writeConfig, type Connection } from './helpers.js'

/** The continuation in an APPROVAL_REQUIRED result. */
function continuationIn(texts: readonly string[]): string {
  const match = /continuation: (\S+)/.exec(texts[0] ?? '')
  if (match === null) throw new Error(`no continuation in ${JSON.stringify(texts)}`)
  return match[1]!
}

// demo.add needs approval; the other demo tools do not.
describe('approvals: a tool marked needsApproval pauses run_javascript, resume_javascript continues it', () => {
  let server: Connection

  beforeAll(async () => {
    server = await connect(writeConfig({ mcpServers: { demo: { ...DEMO_UPSTREAM, needsApproval: ['add'] } }, backend: 'quickjs' }))
  })
  afterAll(async () => {
    await server?.close()
  })

  const PROGRAM = [
    'const hello = await demo.greet({ name: "ada" })',
    'console.log(hello)',
    'let sum',
    'try { sum = (await demo.add({ a: 2, b: 3 })).sum } catch (e) { sum = "refused: " + e.message }',
    'return { hello, sum }',
  ].join('\n')

  it('lists resume_javascript next to run_javascript', async () => {
    const { tools } = await server.client.listTools()
    const resume = tools.find((tool) => tool.name === 'resume_javascript')
    expect(resume?.inputSchema.required?.sort()).toEqual(['approve', 'continuation'])
    expect(resume?.annotations?.destructiveHint).toBe(true)
  })

  it('asks before demo.add runs, then runs it once approved', async () => {
    const paused = await runJavaScript(server.client, PROGRAM)
    expect(paused.isError).toBeFalsy()
    expect(paused.texts[0]).toContain('APPROVAL_REQUIRED: the program wants to call demo.add with {"a":2,"b":3}')
    expect(paused.texts[1]).toContain('Hello, ada')
    const continuation = continuationIn(paused.texts)
    const approved = await callTool(server.client, 'resume_javascript', { continuation, approve: true })
    expect(approved.isError).toBeFalsy()
    expect(JSON.parse(approved.texts[0]!)).toEqual({ hello: expect.stringContaining('ada'), sum: 5 })
    // One approval, one call: the same continuation does not resume twice.
    const again = await callTool(server.client, 'resume_javascript', { continuation, approve: true })
    expect(again.isError).toBe(true)
    expect(again.texts[0]).toMatch(/^INVALID_CONTINUATION: .*already used/)
  })

  it('a refusal reaches the program as an error with the reason', async () => {
    const paused = await runJavaScript(server.client, PROGRAM)
    const refused = await callTool(server.client, 'resume_javascript', {
      continuation: continuationIn(paused.texts),
      approve: false,
      reason: 'not today',
    })
    expect(JSON.parse(refused.texts[0]!)).toMatchObject({ sum: 'refused: not today' })
  })

  it('a changed continuation is refused', async () => {
    const paused = await runJavaScript(server.client, PROGRAM)
    const token = continuationIn(paused.texts)
    const at = Math.floor(token.length / 2)
    const tampered = token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1)
    const result = await callTool(server.client, 'resume_javascript', { continuation: tampered, approve: true })
    expect(result.isError).toBe(true)
    expect(result.texts[0]).toMatch(/^INVALID_CONTINUATION: /)
  })
})

describe('a client that supports elicitation is asked directly, within the run_javascript call', () => {
  let server: Connection
  const asked: string[] = []
  let reply: (request: ElicitRequest) => ElicitResult = () => ({ action: 'cancel' })

  beforeAll(async () => {
    server = await connect(writeConfig({ mcpServers: { demo: { ...DEMO_UPSTREAM, needsApproval: true } }, backend: 'quickjs' }), 'stdio', {
      capabilities: { elicitation: { form: {} } },
    })
    server.client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message)
      return reply(request)
    })
  })
  afterAll(async () => {
    await server?.close()
  })

  const PROGRAM =
    'const a = await demo.add({ a: 1, b: 2 }); let g; try { g = await demo.greet({ name: "bo" }) } catch (e) { g = "no: " + e.message }; return [a.sum, g]'

  it('accepting approves each call; declining reaches the program as an error', async () => {
    asked.length = 0
    reply = (request) => ({ action: request.params.message.includes('demo.add') ? 'accept' : 'decline', content: { approve: true } })
    const result = await runJavaScript(server.client, PROGRAM)
    expect(result.isError).toBeFalsy()
    expect(JSON.parse(result.texts[0]!)).toEqual([3, 'no: the user declined this call'])
    expect(asked).toHaveLength(2)
    expect(asked[0]).toContain('demo.add with {"a":1,"b":2}')
  })

  it('a dismissed question leaves the continuation for resume_javascript', async () => {
    reply = () => ({ action: 'cancel' })
    const result = await runJavaScript(server.client, PROGRAM)
    expect(result.texts[0]).toContain('APPROVAL_REQUIRED: the program wants to call demo.add')
    expect(continuationIn(result.texts)).toMatch(/^c1\./)
  })
})

describe('without needsApproval in the config', () => {
  it('offers no resume_javascript', async () => {
    const server = await connect(writeConfig({ mcpServers: { demo: DEMO_UPSTREAM }, backend: 'quickjs' }))
    try {
      const { tools } = await server.client.listTools()
      expect(tools.map((tool) => tool.name)).not.toContain('resume_javascript')
    } finally {
      await server.close()
    }
  })
})
