import { isIP } from 'node:net'
import { parseArgs } from 'node:util'
import { DEFAULT_DISCOVERY_THRESHOLD } from './tool-description.js'

export const CONFIG_ENV = 'CORDON_MCP_CONFIG'
export const TOKEN_ENV = 'CORDON_MCP_TOKEN'

/** Defaults of the HTTP options; each is a flag. */
export const HTTP_DEFAULTS = { maxSessions: 100, maxRunsPerClient: 4, sessionIdleMs: 30 * 60_000 } as const

export const USAGE = `Usage: cordon-mcp [--config <file>] [--http <host:port> [--stateless]]

An MCP server for code mode: its run_javascript tool runs a model's program in a cordon
sandbox where the tools of the MCP servers listed in the config are async functions.
It speaks MCP over stdio, or over Streamable HTTP at /mcp with --http.

Options:
  -c, --config <file>           the config file (JSON); default: $${CONFIG_ENV}, else no upstream servers
      --http <host:port>        serve Streamable HTTP at http://<host:port>/mcp instead of stdio
                                (port 0: any free port). Clients send "Authorization: Bearer <token>"
                                with the token in $${TOKEN_ENV}, which is required unless host is
                                a loopback address (127.0.0.1, ::1, localhost)
      --stateless               with --http: no MCP sessions, so any replica behind a load
                                balancer can serve any request
      --max-sessions <n>        with --http: most MCP sessions at once (default ${HTTP_DEFAULTS.maxSessions})
      --max-runs-per-client <n> with --http: most run_javascript calls in flight per MCP session
                                (per process with --stateless) (default ${HTTP_DEFAULTS.maxRunsPerClient})
      --session-idle-ms <ms>    with --http: a session unused this long is closed (default ${HTTP_DEFAULTS.sessionIdleMs})
      --discovery-threshold <n> above this many upstream tools, run_javascript's description lists
                                tool names only, and the model finds tools with search_tools and
                                their types with get_declarations (default ${DEFAULT_DISCOVERY_THRESHOLD}; 0: always)
  -h, --help                    show this help
  -v, --version                 show the version

Config format and examples: apps/mcp-server/README.md`

export interface HttpOptions {
  host: string
  port: number
  stateless: boolean
  maxSessions: number
  maxRunsPerClient: number
  sessionIdleMs: number
  /** From CORDON_MCP_TOKEN; undefined when it is not set (allowed on loopback only). */
  token: string | undefined
}

export type Invocation =
  | { kind: 'serve'; configFile: string | undefined; http: HttpOptions | undefined; discoveryThreshold: number }
  | { kind: 'help' }
  | { kind: 'version' }

/** A command line cordon-mcp cannot make sense of (exit code 2, with the usage). */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}

/** A command line that makes sense but must not be served as it is (exit code 1). */
export class UnsafeInvocationError extends Error {
  override readonly name = 'UnsafeInvocationError'
}

export function parseInvocation(argv: readonly string[], env: NodeJS.ProcessEnv): Invocation {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string', short: 'c' },
        http: { type: 'string' },
        stateless: { type: 'boolean' },
        'max-sessions': { type: 'string' },
        'max-runs-per-client': { type: 'string' },
        'session-idle-ms': { type: 'string' },
        'discovery-threshold': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
      allowPositionals: false,
    })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const { values } = parsed
  if (values.help === true) return { kind: 'help' }
  if (values.version === true) return { kind: 'version' }
  const fromEnv = env[CONFIG_ENV]?.trim()
  const configFile = values.config ?? (fromEnv === '' ? undefined : fromEnv)
  const discoveryThreshold = wholeNumber(values['discovery-threshold'], '--discovery-threshold', DEFAULT_DISCOVERY_THRESHOLD, 0)

  const httpOnly = (['stateless', 'max-sessions', 'max-runs-per-client', 'session-idle-ms'] as const).filter(
    (name) => values[name] !== undefined,
  )
  if (values.http === undefined) {
    if (httpOnly.length > 0) throw new UsageError(`--${httpOnly[0]} only applies with --http <host:port>`)
    return { kind: 'serve', configFile, http: undefined, discoveryThreshold }
  }
  const { host, port } = parseListenAddress(values.http)
  const token = env[TOKEN_ENV] === undefined || env[TOKEN_ENV] === '' ? undefined : env[TOKEN_ENV]
  if (token === undefined && !isLoopback(host)) {
    throw new UnsafeInvocationError(
      `--http ${values.http} listens beyond this machine (${host} is not a loopback address), so clients must authenticate: ` +
        `set ${TOKEN_ENV} to a secret bearer token (e.g. \`export ${TOKEN_ENV}=$(openssl rand -hex 32)\`), or listen on 127.0.0.1`,
    )
  }
  return {
    kind: 'serve',
    configFile,
    discoveryThreshold,
    http: {
      host,
      port,
      stateless: values.stateless === true,
      maxSessions: wholeNumber(values['max-sessions'], '--max-sessions', HTTP_DEFAULTS.maxSessions),
      maxRunsPerClient: wholeNumber(values['max-runs-per-client'], '--max-runs-per-client', HTTP_DEFAULTS.maxRunsPerClient),
      sessionIdleMs: wholeNumber(values['session-idle-ms'], '--session-idle-ms', HTTP_DEFAULTS.sessionIdleMs),
      token,
    },
  }
}

/** `127.0.0.1:8080`, `[::1]:8080`, `localhost:0`, `0.0.0.0:3000`. */
export function parseListenAddress(text: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text)
  const host = match?.[1] ?? match?.[2]
  const port = Number(match?.[3])
  if (match === null || host === undefined || !(port >= 0 && port <= 65_535)) {
    throw new UsageError(
      `--http expects <host>:<port> (e.g. 127.0.0.1:8080, [::1]:8080, 0.0.0.0:8080; port 0 picks a free one), got "${text}"`,
    )
  }
  if (match[1] !== undefined && isIP(host) !== 6) throw new UsageError(`--http: "${host}" in brackets is not an IPv6 address`)
  return { host, port }
}

/** Addresses only this machine can reach: no token needed there. */
export function isLoopback(host: string): boolean {
  const lower = host.toLowerCase()
  if (lower === 'localhost' || lower === '::1') return true
  if (isIP(lower) === 4) return lower.startsWith('127.')
  return /^::ffff:127\./.test(lower)
}

function wholeNumber(text: string | undefined, flag: string, fallback: number, min = 1): number {
  if (text === undefined) return fallback
  if (!/^\d+$/.test(text) || Number(text) < min || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`${flag} expects a whole number of at least ${min}, got "${text}"`)
  }
  return Number(text)
}
