import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult, ClientCapabilities, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { afterAll } from 'vitest'

export const SERVER = fileURLToPath(new URL('../dist/server.js', import.meta.url))
export const UPSTREAM = fileURLToPath(new URL('./fixtures/upstream-server.mjs', import.meta.url))

/**
 * Processes a test file started itself (HTTP servers, fixtures, HAProxy): stopped after the
 * file (a hook registered here, at import, where vitest collects it; one registered inside
 * beforeAll or a test would not run), and killed if the worker exits before that.
 */
const children = new Set<ChildProcess>()
/** Temporary directories of the file (writeConfig), removed after it the same way. */
const directories = new Set<string>()

export function track<T extends ChildProcess>(child: T): T {
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

/** SIGTERM, then SIGKILL if it is still there after 10 s; resolves once it has exited. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
  await exited
  clearTimeout(timer)
}

afterAll(async () => {
  await Promise.all([...children].map(stopProcess))
  for (const dir of directories) rmSync(dir, { recursive: true, force: true })
})
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL')
})

/** An upstream entry that starts the fixture server with the node running the tests. */
export const DEMO_UPSTREAM = { command: process.execPath, args: [UPSTREAM] }

/** A config file in a temporary directory removed after the test file; returns its path. */
export function writeConfig(config: unknown, fileName = 'config.json'): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'cordon-mcp-'))
  directories.add(dir)
  const file = path.join(dir, fileName)
  writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config, null, 2))
  return file
}

/** The two ways a client reaches cordon-mcp; tests that are about the tools run over both. */
export type TransportKind = 'stdio' | 'http'
export const TRANSPORTS: readonly TransportKind[] = ['stdio', 'http']

export interface Connection {
  client: Client
  /** Everything cordon-mcp (and its upstreams, prefixed) wrote on stderr so far. */
  stderr(): string
  /** cordon-mcp's pid. */
  pid: number
  /** Closes the client, and over HTTP also stops the server (over stdio closing the client does). */
  close(): Promise<void>
}

/**
 * Starts cordon-mcp with `--config <file>` and connects a real SDK client to it: over stdio as
 * Claude Desktop does, or over Streamable HTTP on 127.0.0.1 (a free port, a random token).
 */
export async function connect(
  configFile: string,
  transport: TransportKind = 'stdio',
  {
    args = [],
    env,
    capabilities,
  }: {
    args?: readonly string[]
    env?: Record<string, string>
    /** stdio only: what the client declares (e.g. elicitation). */ capabilities?: ClientCapabilities
  } = {},
): Promise<Connection> {
  if (transport === 'http') {
    const server = await startHttpServer(['--config', configFile, ...args], { env })
    try {
      const client = await connectHttp(server.url, server.token)
      return {
        client,
        stderr: server.stderr,
        pid: server.pid,
        close: async () => {
          await client.close()
          await server.stop()
        },
      }
    } catch (error) {
      await server.stop()
      throw error
    }
  }
  const stdio = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, '--config', configFile, ...args],
    stderr: 'pipe',
    ...(env !== undefined && { env: { ...getDefaultEnvironment(), ...env } }),
  })
  let stderr = ''
  stdio.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const client = new Client({ name: 'cordon-mcp-tests', version: '0.0.0' }, capabilities && { capabilities })
  try {
    await client.connect(stdio)
  } catch (error) {
    throw new Error(`could not connect to cordon-mcp: ${(error as Error).message}\nits stderr:\n${stderr}`, { cause: error })
  }
  return { client, stderr: () => stderr, pid: stdio.pid!, close: () => client.close() }
}

export interface HttpServer {
  /** `http://127.0.0.1:<port>/mcp`, read from the server's ready line. */
  url: string
  /** The CORDON_MCP_TOKEN it was started with (undefined when none). */
  token: string | undefined
  pid: number
  stderr(): string
  /** SIGTERM, then waits for the process to exit. */
  stop(): Promise<void>
}

export const newToken = () => randomBytes(24).toString('hex')

/**
 * Starts `node dist/server.js --http 127.0.0.1:0 …` (the OS picks the port; the server says
 * which on stderr). With a random token unless `token: null`. Stopped after the test file.
 */
export async function startHttpServer(
  args: readonly string[],
  options: { token?: string | null; listen?: string; env?: Record<string, string> | undefined } = {},
): Promise<HttpServer> {
  const token = options.token === null ? undefined : (options.token ?? newToken())
  const env = { ...process.env, ...options.env, ...(token === undefined ? {} : { CORDON_MCP_TOKEN: token }) }
  if (token === undefined) delete env.CORDON_MCP_TOKEN
  const child = track(
    spawn(process.execPath, [SERVER, '--http', options.listen ?? '127.0.0.1:0', ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  )
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const stop = () => stopProcess(child)
  const url = await Promise.race([
    (async () => {
      for (let i = 0; i < 600; i++) {
        const match = /Streamable HTTP at (http:\/\/[^\s,]+)/.exec(stderr)
        if (match !== null) return match[1]!
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      throw new Error(`cordon-mcp --http did not say it was ready within 30 s; its stderr:\n${stderr}`)
    })(),
    exited.then((code) => {
      throw new Error(`cordon-mcp --http exited (code ${code}) before it was ready; its stderr:\n${stderr}`)
    }),
  ])
  return { url, token, pid: child.pid!, stderr: () => stderr, stop }
}

/** A real SDK client over Streamable HTTP, sending the bearer token when there is one. */
export async function connectHttp(url: string, token: string | undefined, name = 'cordon-mcp-tests'): Promise<Client> {
  const headers: Record<string, string> = token === undefined ? {} : { Authorization: `Bearer ${token}` }
  const client = new Client({ name, version: '0.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }))
  return client
}

/** Calls a tool and returns its result with the text blocks. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult & { texts: string[] }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  return { ...result, texts: result.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])) }
}

export function runJavaScript(client: Client, code: string, limits: Record<string, number> = {}) {
  return callTool(client, 'run_javascript', { code, ...limits })
}

/** Resolves once `check()` is true; rejects after `ms`. For things that happen in another process. */
export async function eventually(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`still waiting after ${ms} ms for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export interface ProcessExit {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs cordon-mcp with `args` and stdin closed, and waits for it to exit. */
export function runServer(args: readonly string[], env: Record<string, string> = {}): Promise<ProcessExit> {
  const child = spawn(process.execPath, [SERVER, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  child.stdin.end()
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Resolves once `pid` is gone; rejects after `ms` (a hung exit is a failure, not a slow pass). */
export async function waitForExit(pid: number, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} is still running after ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Every process below `pid` (children, grandchildren, …), from `ps`. */
export function descendants(pid: number): number[] {
  const table = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' })
  const children = new Map<number, number[]>()
  for (const line of table.trim().split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number) as [number, number]
    children.set(parent, [...(children.get(parent) ?? []), child])
  }
  const found: number[] = []
  const queue = [pid]
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child)
      queue.push(child)
    }
  }
  return found
}

/**
 * Every message the client receives from now on, in the order it reaches the client (before the
 * SDK handles it), until `stop()`. For what the server sends on the wire, where the SDK's own
 * handling would hide it: the SDK client drops progress notifications it gets in the same read as
 * the response (modelcontextprotocol/typescript-sdk#2580).
 */
export function recordMessages(client: Client): { messages: JSONRPCMessage[]; stop(): void } {
  const transport = client.transport!
  const handle = transport.onmessage!
  const messages: JSONRPCMessage[] = []
  transport.onmessage = (message, extra) => {
    messages.push(message)
    handle(message, extra)
  }
  return { messages, stop: () => void (transport.onmessage = handle) }
}

/** The `notifications/progress` messages among `messages` that came before the response to the request with `id`, and whether that response came. */
export function progressBeforeResponse(messages: readonly JSONRPCMessage[]): {
  progress: { progress: number; message?: string }[]
  responded: boolean
} {
  const response = messages.findIndex((message) => 'id' in message && ('result' in message || 'error' in message))
  const before = response === -1 ? messages : messages.slice(0, response)
  const progress = before.flatMap((message) =>
    'method' in message && message.method === 'notifications/progress' ? [message.params as { progress: number; message?: string }] : [],
  )
  return { progress, responded: response !== -1 }
}
