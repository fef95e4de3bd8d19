import { statSync } from 'node:fs'
import path from 'node:path'
import type { StdioServerParameters } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { UpstreamConfig } from './config-schema.js'
import { expandEnv } from './expand-env.js'

/**
 * How to start one upstream: `${VAR}`s expanded, and the working directory resolved from the
 * config file's folder (so `"args": ["./server.mjs"]` means next to the config file, whatever
 * directory the MCP client starts cordon-mcp in). Throws an Error whose message is the reason.
 */
export function launchParameters(config: UpstreamConfig, configDirectory: string, env: NodeJS.ProcessEnv): StdioServerParameters {
  const cwd = path.resolve(configDirectory, expandEnv(config.cwd ?? '.', env, 'cwd'))
  if (!isDirectory(cwd)) throw new Error(`its cwd ${cwd} is not a directory`)
  return {
    command: expandEnv(config.command ?? '', env, 'command'),
    args: (config.args ?? []).map((arg, i) => expandEnv(arg, env, `args[${i}]`)),
    env: Object.fromEntries(Object.entries(config.env ?? {}).map(([key, value]) => [key, expandEnv(value, env, `env.${key}`)])),
    cwd,
    // Piped, not inherited: each line is relayed with the upstream's name, and the end of it
    // explains a failed start.
    stderr: 'pipe',
  }
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory()
  } catch {
    return false
  }
}
