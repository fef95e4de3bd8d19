import { parseArgs } from 'node:util'

export const CONFIG_ENV = 'CORDON_MCP_CONFIG'

export const USAGE = `Usage: cordon-mcp [--config <file>]

An MCP server (stdio) for code mode: its run_javascript tool runs a model's program in a
cordon sandbox where the tools of the MCP servers listed in the config are async functions.

Options:
  -c, --config <file>   the config file (JSON); default: $${CONFIG_ENV}, else no upstream servers
  -h, --help            show this help
  -v, --version         show the version

Config format and examples: apps/mcp-server/README.md`

export type Invocation = { kind: 'serve'; configFile: string | undefined } | { kind: 'help' } | { kind: 'version' }

/** A command line cordon-mcp cannot make sense of. */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}

export function parseInvocation(argv: readonly string[], env: NodeJS.ProcessEnv): Invocation {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string', short: 'c' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
      allowPositionals: false,
    })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  if (parsed.values.help === true) return { kind: 'help' }
  if (parsed.values.version === true) return { kind: 'version' }
  const fromEnv = env[CONFIG_ENV]?.trim()
  return { kind: 'serve', configFile: parsed.values.config ?? (fromEnv === '' ? undefined : fromEnv) }
}
