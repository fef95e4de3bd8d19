import type { FetchOptions, FetchSecret } from '@cordon/core'
import type { ConfigFetch } from './config-schema.js'
import { expandEnv } from './expand-env.js'
import { ConfigError } from './load-config.js'

/** The config's `fetch` as core's run option, each secret's `${ENV_VAR}` read from cordon-mcp's environment. */
export function fetchOptionFrom(config: ConfigFetch | undefined, env: NodeJS.ProcessEnv = process.env): FetchOptions | undefined {
  if (config === undefined) return undefined
  const { secrets, ...rest } = config
  if (secrets === undefined) return rest
  const expanded: Record<string, FetchSecret> = {}
  for (const [name, secret] of Object.entries(secrets)) {
    try {
      expanded[name] = { value: expandEnv(secret.value, env, `"fetch.secrets.${name}.value"`), hosts: secret.hosts }
    } catch (error) {
      throw new ConfigError((error as Error).message)
    }
  }
  return { ...rest, secrets: expanded }
}
