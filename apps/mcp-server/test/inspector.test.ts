import { execFile, execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEMO_UPSTREAM, SERVER, startHttpServer, writeConfig, type HttpServer } from './helpers.js'

// A third-party MCP client drives cordon-mcp: the MCP Inspector's CLI (npm
// @modelcontextprotocol/inspector, pinned), over stdio and over Streamable HTTP. It needs
// Node >= 22.19, so it runs on the Node 26 that the runtime matrix and test-node-line.mjs
// download into the same folder ($CORDON_RUNTIMES_DIR, default <tmp>/cordon-runtimes);
// both are installed here with npm when missing. A failed install fails the test.

const INSPECTOR_VERSION = '2.12.0'
const NODE_MAJOR = 26
const runtimes = process.env.CORDON_RUNTIMES_DIR ?? path.join(tmpdir(), 'cordon-runtimes')
const nodePackage = `node-${process.platform}-${process.arch}`
const nodeBin = path.join(runtimes, `node${NODE_MAJOR}`, 'node_modules', nodePackage, 'bin', 'node')
const inspectorHome = path.join(runtimes, `mcp-inspector-${INSPECTOR_VERSION}`)
const inspector = path.join(inspectorHome, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js')

function install(prefix: string, spec: string, env: NodeJS.ProcessEnv): void {
  try {
    execFileSync('npm', ['i', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', spec], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...env, npm_config_update_notifier: 'false' },
      timeout: 600_000,
    })
  } catch (error) {
    throw new Error(
      `could not install ${spec} with npm into ${prefix}: ${(error as { stderr?: Buffer }).stderr?.toString() ?? (error as Error).message}`,
      { cause: error },
    )
  }
}

interface InspectorRun {
  code: number
  json: unknown
  stdout: string
  stderr: string
}

/** `mcp-inspector --cli …` on Node 26: one JSON document on stdout (the result) or on stderr (an error). */
function inspect(args: readonly string[]): Promise<InspectorRun> {
  return new Promise((resolve, reject) => {
    execFile(nodeBin, [inspector, '--cli', ...args], { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1
      if (code === -1) return reject(new Error(`the inspector did not run: ${error?.message}\n${stderr}`))
      try {
        resolve({ code, json: JSON.parse(stdout.trim() === '' ? stderr : stdout), stdout, stderr })
      } catch {
        reject(new Error(`the inspector's output is not JSON (exit ${code}):\n${stdout}\n${stderr}`))
      }
    })
  })
}

const text = (run: InspectorRun) => ((run.json as { content?: { text: string }[] }).content ?? []).map((block) => block.text)

describe(`the MCP Inspector CLI (${INSPECTOR_VERSION}) as the client`, () => {
  let config: string

  beforeAll(() => {
    if (!existsSync(nodeBin)) install(path.join(runtimes, `node${NODE_MAJOR}`), `${nodePackage}@${NODE_MAJOR}`, process.env)
    // Installed by the Node it runs on (its engines field asks for >= 22.19).
    if (!existsSync(inspector))
      install(inspectorHome, `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`, {
        ...process.env,
        PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH}`,
      })
    config = writeConfig({ mcpServers: { demo: DEMO_UPSTREAM }, backend: 'quickjs', limits: { timeoutMs: 5_000 } })
  }, 900_000)

  describe('over stdio (it starts cordon-mcp)', () => {
    // `--` ends the inspector's own flags: cordon-mcp's --config is not the inspector's.
    const server = () => ['--', process.execPath, SERVER, '--config', config]

    it('lists the tools', async () => {
      const run = await inspect(['--method', 'tools/list', ...server()])
      expect(run.code, run.stderr).toBe(0)
      const names = (run.json as { tools: { name: string }[] }).tools.map((tool) => tool.name)
      expect(names.sort()).toEqual(['get_declarations', 'run_javascript', 'search_tools'])
    })

    it('runs a program with two parallel upstream calls', async () => {
      const code = 'code=const [a, b] = await Promise.all([demo.add({ a: 1, b: 2 }), demo.add({ a: 3, b: 4 })]); a.sum + b.sum'
      const run = await inspect(['--method', 'tools/call', '--tool-name', 'run_javascript', '--tool-arg', code, ...server()])
      expect(run.code, run.stderr).toBe(0)
      expect(text(run)).toEqual(['10'])
    })

    it('gets a TIMEOUT error result for while (true) {}', async () => {
      const run = await inspect([
        '--method',
        'tools/call',
        '--tool-name',
        'run_javascript',
        '--tool-arg',
        'code=while (true) {}',
        '--tool-arg',
        'timeoutMs=500',
        ...server(),
      ])
      // The inspector prints the result, then exits non-zero for an isError result.
      expect(run.code).not.toBe(0)
      expect(run.stdout).toMatch(/"text": "TIMEOUT: /)
      expect(run.stdout).toContain('"isError": true')
    })
  })

  describe('over Streamable HTTP with the bearer token', () => {
    let http: HttpServer
    beforeAll(async () => {
      http = await startHttpServer(['--config', config])
    })
    afterAll(() => http?.stop())

    it('calls run_javascript', async () => {
      const run = await inspect([
        http.url,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${http.token}`,
        '--method',
        'tools/call',
        '--tool-name',
        'run_javascript',
        '--tool-arg',
        'code=(await demo.add({ a: 40, b: 2 })).sum',
      ])
      expect(run.code, run.stderr).toBe(0)
      expect(text(run)).toEqual(['42'])
    })

    it('is refused without the token', async () => {
      const run = await inspect([http.url, '--transport', 'http', '--method', 'tools/list', '--stored-auth-only'])
      expect(run.code).not.toBe(0)
      expect(run.json).toMatchObject({ error: { code: 'auth_required', message: expect.stringContaining('Unauthorized') } })
    })
  })
})
