import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll } from 'vitest'

export const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url))

export interface CliRun {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  ms: number
}

export interface CliOptions {
  cwd?: string
  /** Written to stdin, which is then closed. */
  input?: string
  /** Added to a clean environment (no CORDON_*, colour or NODE_OPTIONS variables). */
  env?: Record<string, string>
  /** Called with the process and its stderr so far whenever stderr grows. */
  onStderr?: (child: ChildProcess, stderr: string) => void
  /** Called with the process and its stdout so far whenever stdout grows. */
  onStdout?: (child: ChildProcess, stdout: string) => void
}

/** The environment the CLI runs in: this one without CORDON_*, colour or NODE_OPTIONS variables, plus `extra`. */
export function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || key.startsWith('CORDON_') || ['NO_COLOR', 'FORCE_COLOR', 'NODE_OPTIONS'].includes(key)) continue
    env[key] = value
  }
  return { ...env, ...extra }
}

/** Runs `node dist/cli.js …args` like a shell would, and collects everything it printed. */
export function cordon(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  const started = performance.now()
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: cliEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
    options.onStdout?.(child, stdout)
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
    options.onStderr?.(child, stderr)
  })
  child.stdin.end(options.input ?? '')
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, ms: performance.now() - started }))
  })
}

/** A temporary directory holding `files`, removed after the test file. */
export function tempDir(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'cordon-cli-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** A tools module: the fake GitHub tool of the README, as a user would write it. */
export const GITHUB_TOOLS = `export default {
  'github.listIssues': {
    description: 'List the open issues of a repository',
    inputSchema: { type: 'object', properties: { repo: { type: 'string' } }, required: ['repo'] },
    execute: async ({ repo }) => [{ id: 1, repo }, { id: 2, repo }],
  },
}
`

/** A tool that tells the test (on the CLI's stderr) that the guest is running. */
export const READY_TOOLS = `export const tools = {
  'test.ready': { execute: () => { process.stderr.write('guest-running\\n'); return true } },
}
`

// The escape character is the point: ANSI colour codes start with it.
// eslint-disable-next-line no-control-regex
export const ANSI = /\u001b\[\d+m/
