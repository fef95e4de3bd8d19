import { describe, expect, it } from 'vitest'
import { connect, DEMO_UPSTREAM, runServer, writeConfig } from './helpers.js'

describe('a config file cordon-mcp cannot use', () => {
  it('that does not exist: exits 1 and names the file', async () => {
    const run = await runServer(['--config', '/nonexistent/cordon-mcp.json'])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('cannot read the config file /nonexistent/cordon-mcp.json: the file does not exist')
    expect(run.stdout).toBe('')
  })

  it('given through CORDON_MCP_CONFIG', async () => {
    const run = await runServer([], { CORDON_MCP_CONFIG: '/nonexistent/from-env.json' })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('/nonexistent/from-env.json: the file does not exist')
  })

  it('that is not JSON: exits 1 and says where the JSON breaks', async () => {
    const file = writeConfig('{ "mcpServers": { "demo": { "command": "node", } } }')
    const run = await runServer(['--config', file])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(`the config file ${file} is not valid JSON`)
    expect(run.stderr).toMatch(/position \d+/)
  })

  it('of the wrong shape: exits 1 and lists every problem with its path', async () => {
    const file = writeConfig({
      mcpServers: { demo: { args: ['server.js'] }, 'my-server': { command: 'node' } },
      backend: 'v8',
      limits: { timeoutMs: -5 },
      extra: true,
    })
    const run = await runServer(['--config', file])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('is not a valid cordon-mcp config')
    expect(run.stderr).toMatch(/- mcpServers\.demo\.command: /)
    expect(run.stderr).toMatch(/- mcpServers\.my-server: a server name becomes a namespace in the sandbox/)
    expect(run.stderr).toMatch(/- backend: .*"auto"/)
    expect(run.stderr).toMatch(/- limits\.timeoutMs: /)
    expect(run.stderr).toMatch(/- \(top level\): .*"extra"/)
  })

  it('with a limit cordon does not accept: exits 1 and names the limit and its range', async () => {
    const run = await runServer(['--config', writeConfig({ backend: 'quickjs', limits: { memoryMb: 1 } })])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('the config\'s "limits" are not valid')
    expect(run.stderr).toContain('memoryMb must be an integer from 8 to 65536, got 1')
  })
})

describe('the command line', () => {
  it('refuses an unknown option with exit 2 and the usage', async () => {
    const run = await runServer(['--confgi', 'x.json'])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain("Unknown option '--confgi'")
    expect(run.stderr).toContain('Usage: cordon-mcp [--config <file>]')
  })

  it('prints the usage with --help', async () => {
    const run = await runServer(['--help'])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Usage: cordon-mcp [--config <file>]')
  })
})

describe('an upstream server that fails to start', () => {
  it('is left out, with the reason on stderr and in the tool description; the others still work', async () => {
    const server = await connect(
      writeConfig({
        backend: 'quickjs',
        mcpServers: {
          demo: DEMO_UPSTREAM,
          broken: { command: process.execPath, args: ['./no-such-server.mjs'] },
          missing: { command: 'cordon-mcp-no-such-command' },
        },
      }),
    )
    try {
      expect(server.stderr()).toMatch(/upstream server "broken" failed to start, continuing without it: .*Cannot find module/s)
      expect(server.stderr()).toContain(
        'upstream server "missing" failed to start, continuing without it: the command "cordon-mcp-no-such-command" was not found',
      )
      const { tools } = await server.client.listTools()
      const description = tools.find((tool) => tool.name === 'run_javascript')!.description!
      expect(description).toContain('Not available in this session:')
      expect(description).toMatch(/- broken: its server failed to start/)
      expect(description).toMatch(/- missing: its server failed to start \(the command "cordon-mcp-no-such-command" was not found/)
      const result = await server.client.callTool({
        name: 'run_javascript',
        arguments: { code: '[typeof broken, (await demo.add({ a: 1, b: 1 })).sum]' },
      })
      expect(result.content).toEqual([{ type: 'text', text: '[\n  "undefined",\n  2\n]' }])
    } finally {
      await server.client.close()
    }
  })

  it('stops cordon-mcp when it is marked required: exit 1, naming it and why', async () => {
    const file = writeConfig({
      backend: 'quickjs',
      mcpServers: { demo: DEMO_UPSTREAM, broken: { command: process.execPath, args: ['./no-such-server.mjs'], required: true } },
    })
    const run = await runServer(['--config', file])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('cannot start: a required upstream server did not start')
    expect(run.stderr).toMatch(/upstream server "broken" failed to start: .*Cannot find module.*no-such-server\.mjs/s)
    expect(run.stderr).toContain('(it is marked "required": true)')
  })

  it('with a ${VAR} that is not set: says which one', async () => {
    const file = writeConfig({
      backend: 'quickjs',
      mcpServers: { demo: { ...DEMO_UPSTREAM, env: { TOKEN: '${CORDON_MCP_TEST_UNSET}' }, required: true } },
    })
    const run = await runServer(['--config', file])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('env.TOKEN uses ${CORDON_MCP_TEST_UNSET}, which is not set')
  })
})
