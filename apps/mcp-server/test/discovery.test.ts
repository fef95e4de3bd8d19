import { resolveLimits } from '@cordon/core'
import { countTokens } from 'gpt-tokenizer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { declarationsFor } from '../src/declarations.js'
import type { GuestNamespace, GuestTool } from '../src/guest-catalog.js'
import { searchTools } from '../src/search-tools.js'
import { DEFAULT_DISCOVERY_THRESHOLD, runToolDescription } from '../src/tool-description.js'
import type { Upstream } from '../src/upstream.js'
import { callTool, connect, DEMO_UPSTREAM, runJavaScript, TRANSPORTS, writeConfig, type Connection } from './helpers.js'

// Progressive discovery: a large catalog is listed by name in run_javascript's description,
// and the model finds tools with search_tools and fetches their types with get_declarations.

const SERVICES = ['github', 'linear', 'sentry', 'slack', 'jira', 'notion', 'gdrive', 'postgres', 'stripe', 'datadog']
const VERBS = ['list', 'get', 'create', 'update', 'delete']
const NOUNS = ['issues', 'pull_requests', 'comments', 'projects', 'members', 'labels', 'milestones', 'releases', 'webhooks', 'attachments']

/** A catalog shaped like real hosted MCP servers: `count` tools over up to 10 namespaces, each with a described schema. */
function catalog(count: number): GuestNamespace[] {
  const perNamespace = Math.min(50, Math.max(5, Math.ceil(count / SERVICES.length)))
  const namespaces: GuestNamespace[] = []
  for (let n = 0; n * perNamespace < count; n++) {
    const service = SERVICES[n]!
    const tools: GuestTool[] = []
    for (let t = 0; t < perNamespace && n * perNamespace + t < count; t++) {
      const verb = VERBS[t % VERBS.length]!
      const noun = NOUNS[Math.floor(t / VERBS.length) % NOUNS.length]!
      const name = `${verb}_${noun}`
      tools.push({
        guestName: name,
        upstreamName: name,
        description: `${verb[0]!.toUpperCase()}${verb.slice(1)} ${noun.replace('_', ' ')} in a ${service} workspace. Returns the ${noun.replace('_', ' ')} as JSON with ids, titles and timestamps.`,
        inputSchema: {
          type: 'object',
          properties: {
            workspace: { type: 'string', description: `The ${service} workspace or organisation.` },
            id: { type: 'string', description: 'The id of the item, for get, update and delete.' },
            limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Most items to return.' },
            fields: { type: 'object', additionalProperties: { type: 'string' }, description: 'Fields to set.' },
          },
          required: ['workspace'],
        },
      })
    }
    namespaces.push({ name: service, info: { name: `${service}-mcp`, version: '1.0.0' }, upstream: {} as Upstream, tools })
  }
  return namespaces
}

async function descriptionFor(count: number, discoveryThreshold?: number): Promise<string> {
  const namespaces = catalog(count)
  expect(namespaces.reduce((sum, ns) => sum + ns.tools.length, 0)).toBe(count)
  const declarations = await declarationsFor(namespaces)
  return runToolDescription({
    namespaces,
    declarations: declarations.all,
    ceilings: resolveLimits(),
    unavailable: [],
    refused: [],
    ...(discoveryThreshold !== undefined && { discoveryThreshold }),
  })
}

describe('the run_javascript description size (o200k_base tokens, gpt-tokenizer)', () => {
  const measured: Record<string, number> = {}
  afterAll(() => {
    // The figures for the README and the issue; not asserted beyond the bounds below.
    process.stderr.write(
      `run_javascript description tokens: ${Object.entries(measured)
        .map(([n, t]) => `${n} → ${t}`)
        .join(', ')}\n`,
    )
  })

  it('embeds the declarations for 5 tools', async () => {
    const description = await descriptionFor(5)
    measured[5] = countTokens(description)
    expect(description).toContain('declare namespace github {')
    expect(description).toContain('function create_issues(args: CreateIssuesInput): Promise<unknown>;')
  })

  it('lists names only above the threshold: 50 tools', async () => {
    const description = await descriptionFor(50)
    measured[50] = countTokens(description)
    measured['50 without discovery'] = countTokens(await descriptionFor(50, Number.POSITIVE_INFINITY))
    expect(50).toBeGreaterThan(DEFAULT_DISCOVERY_THRESHOLD)
    expect(description).not.toContain('declare namespace')
    expect(description).toContain('Available tools: 50 in 10 namespaces, listed by name only.')
    expect(description).toContain('- github (5): list_issues, get_issues, create_issues, update_issues, delete_issues')
    expect(description).toContain('search_tools({ query')
  })

  it('stays under 1,500 tokens at 500 tools', { timeout: 60_000 }, async () => {
    const description = await descriptionFor(500)
    measured[500] = countTokens(description)
    expect(description).toContain('Available tools: 500 in 10 namespaces, listed by name only.')
    expect(description).toMatch(/- github \(50\): list_issues, get_issues, .*, … \d+ more/)
    expect(measured[500]).toBeLessThan(1_500)
    // Without discovery: one line per tool with its description.
    measured['500 without discovery'] = countTokens(await descriptionFor(500, Number.POSITIVE_INFINITY))
    expect(measured['500 without discovery']).toBeGreaterThan(measured[500] * 5)
  })
})

describe('search_tools ranking', () => {
  const namespaces = catalog(500)

  it('finds tools by words of their name and description, best first, the same every time', () => {
    const hits = searchTools(namespaces, 'create an issue in linear', 5).map((hit) => hit.label)
    expect(hits[0]).toBe('linear.create_issues')
    expect(searchTools(namespaces, 'create an issue in linear', 5).map((hit) => hit.label)).toEqual(hits)
    expect(searchTools(namespaces, 'deleteWebhooks', 3)[0]?.label).toBe('datadog.delete_webhooks')
    expect(searchTools(namespaces, 'pull-request', 50).every((hit) => hit.label.includes('pull_requests'))).toBe(true)
  })

  it('gives nothing for words no tool has, or only stop words', () => {
    expect(searchTools(namespaces, 'quantum teleport', 10)).toEqual([])
    expect(searchTools(namespaces, 'the of and', 10)).toEqual([])
  })
})

describe.each(TRANSPORTS)('progressive discovery over %s', (transport) => {
  let server: Connection

  beforeAll(async () => {
    // The demo upstream has 7 tools: above a threshold of 3.
    server = await connect(writeConfig({ mcpServers: { demo: DEMO_UPSTREAM }, backend: 'quickjs' }), transport, {
      args: ['--discovery-threshold', '3'],
    })
  })
  afterAll(async () => {
    await server?.close()
  })

  it('lists tool names only, and the handshake says how to discover', async () => {
    const { tools } = await server.client.listTools()
    const description = tools.find((tool) => tool.name === 'run_javascript')!.description!
    expect(description).not.toContain('declare namespace')
    expect(description).toContain('- demo (7): add, echo, greet, list_items, fail, slow, pid')
    expect(server.client.getInstructions()).toContain('search_tools')
  })

  it('search_tools finds a tool by intent; get_declarations gives only the tools asked for; the program then works', async () => {
    const found = await callTool(server.client, 'search_tools', { query: 'add two numbers' })
    expect(found.isError).toBeFalsy()
    expect(found.texts[0]).toMatch(/^Tools matching "add two numbers", best first:\n- demo\.add: Add two numbers\./)

    const declared = await callTool(server.client, 'get_declarations', { tools: ['demo.add', 'demo.list-items'] })
    expect(declared.isError).toBeFalsy()
    expect(declared.texts).toHaveLength(1)
    expect(declared.texts[0]).toContain('function add(args: AddInput): Promise<AddOutput>;')
    expect(declared.texts[0]).toContain('function list_items(args: ListItemsInput): Promise<unknown>;')
    expect(declared.texts[0]).not.toContain('function greet')

    const result = await runJavaScript(server.client, '(await demo.add({ a: 2, b: 5 })).sum')
    expect(result.texts[0]).toBe('7')
  })

  it('get_declarations names the tools it does not know', async () => {
    const partly = await callTool(server.client, 'get_declarations', { tools: ['demo.add', 'demo.nope'] })
    expect(partly.isError).toBeFalsy()
    expect(partly.texts[1]).toBe('No tool "demo.nope": use "namespace.tool" as search_tools lists them. Namespaces: demo.')
    const none = await callTool(server.client, 'get_declarations', { tools: ['add'] })
    expect(none.isError).toBe(true)
    const nothing = await callTool(server.client, 'search_tools', { query: 'teleport' })
    expect(nothing.texts[0]).toContain('No tool matches "teleport"')
  })
})
