import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { callTool, connect, DEMO_UPSTREAM, runJavaScript, TRANSPORTS, writeConfig, type Connection } from './helpers.js'

/** Type-checks `usage` against the declarations, as a model's TypeScript program would be. */
function typeErrors(declarations: string, usage: string): string[] {
  const files = new Map([
    ['/tools.d.ts', declarations],
    ['/program.ts', `export {}\n${usage}`],
  ])
  // No @types: the guest has no Node globals, only ECMAScript and the declared namespaces.
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    lib: ['lib.es2022.d.ts'],
    types: [],
    skipLibCheck: true,
  }
  const host = ts.createCompilerHost(options)
  const readFile = host.readFile.bind(host)
  host.readFile = (name) => files.get(name) ?? readFile(name)
  host.fileExists = (name) => files.has(name) || ts.sys.fileExists(name)
  const getSourceFile = host.getSourceFile.bind(host)
  host.getSourceFile = (name, version) => {
    const text = files.get(name)
    return text === undefined ? getSourceFile(name, version) : ts.createSourceFile(name, text, version)
  }
  const program = ts.createProgram([...files.keys()], options, host)
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
}

// Two upstreams (the fixture twice, under two names): two namespaces in one sandbox.
describe.each(TRANSPORTS)('declarations over %s', (transport) => {
  let server: Connection

  beforeAll(async () => {
    server = await connect(writeConfig({ mcpServers: { demo: DEMO_UPSTREAM, store: DEMO_UPSTREAM }, backend: 'quickjs' }), transport)
  })
  afterAll(async () => {
    await server?.close()
  })

  it('get_declarations gives a namespace per upstream, typed from the JSON Schemas', async () => {
    const { texts, isError } = await callTool(server.client, 'get_declarations', {})
    expect(isError).toBeFalsy()
    const declarations = texts[0]!
    expect(declarations).toContain('declare namespace demo {')
    expect(declarations).toContain('declare namespace store {')
    expect(declarations).toContain('function add(args: AddInput): Promise<AddOutput>;')
    expect(declarations).toMatch(/interface AddInput \{[^}]*first addend[^}]*a: number;[^}]*b: number;/)
    expect(declarations).toMatch(/interface AddOutput \{\s*sum: number;\s*\}/)
    expect(declarations).toMatch(/style\?: "short" \| "long";/)
    expect(declarations).toContain('(MCP tool "list-items")')
  })

  it('are valid TypeScript that accepts right calls and rejects wrong ones', async () => {
    const declarations = (await callTool(server.client, 'get_declarations', {})).texts[0]!
    const right = typeErrors(
      declarations,
      'async function f() { const r: { sum: number } = await demo.add({ a: 1, b: 2 }); await store.greet({ name: "x", style: "long" }); return r }',
    )
    expect(right).toEqual([])
    const wrong = typeErrors(
      declarations,
      'async function f() { await demo.add({ a: "1", b: 2 }); await store.greet({ name: "x", style: "loud" }) }',
    )
    expect(wrong).toHaveLength(2)
  })

  it('get_declarations can return one namespace, and names the ones that exist otherwise', async () => {
    const one = await callTool(server.client, 'get_declarations', { namespace: 'store' })
    expect(one.texts[0]).toContain('declare namespace store {')
    expect(one.texts[0]).not.toContain('declare namespace demo')

    const missing = await callTool(server.client, 'get_declarations', { namespace: 'github' })
    expect(missing.isError).toBe(true)
    expect(missing.texts[0]).toBe('No namespace "github". Namespaces: demo, store.')
  })

  it('are also a resource, and the run_javascript description embeds them', async () => {
    const { resources } = await server.client.listResources()
    expect(resources).toEqual([expect.objectContaining({ uri: 'cordon://declarations.d.ts', mimeType: 'text/typescript' })])
    const { contents } = await server.client.readResource({ uri: 'cordon://declarations.d.ts' })
    const text = (contents[0] as { text: string }).text
    const fromTool = (await callTool(server.client, 'get_declarations', {})).texts[0]
    expect(text).toBe(fromTool)
    const { tools } = await server.client.listTools()
    expect(tools.find((tool) => tool.name === 'run_javascript')?.description).toContain(text)
  })

  it('match what the guest can call in both namespaces', async () => {
    const result = await runJavaScript(
      server.client,
      'const [a, b] = await Promise.all([demo.add({ a: 1, b: 1 }), store.add({ a: 2, b: 2 })])\nreturn a.sum + b.sum',
    )
    expect(result.texts[0]).toBe('6')
  })
})
