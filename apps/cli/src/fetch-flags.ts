import { InvalidArgumentError } from 'commander'
import type { FetchOptions, FetchSecret } from '@cordon/core'
import { UsageError } from './usage-error.js'

/** `--fetch-secret NAME=ENV_VAR@host,host`: the secret's value comes from the environment, never argv. */
export interface FetchSecretFlag {
  name: string
  variable: string
  hosts: string[]
}

export interface FetchFlags {
  fetchAllow?: string[]
  fetchSecret?: FetchSecretFlag[]
  fetchAllowPrivate?: boolean
}

const SECRET_FLAG = /^([A-Za-z_][A-Za-z0-9_]*)=([A-Za-z_][A-Za-z0-9_]*)@(.+)$/

/** Commander's parser for one `--fetch-secret`; collects repeats. */
export function fetchSecretFlag(value: string, previous: FetchSecretFlag[] = []): FetchSecretFlag[] {
  const match = SECRET_FLAG.exec(value)
  if (match === null) throw new InvalidArgumentError('expected NAME=ENV_VAR@host[,host…], e.g. API_KEY=GITHUB_TOKEN@api.github.com.')
  const hosts = match[3]!
    .split(',')
    .map((host) => host.trim())
    .filter((host) => host !== '')
  return [...previous, { name: match[1]!, variable: match[2]!, hosts }]
}

/**
 * The `fetch` run option the flags ask for, or undefined without `--fetch-allow` (the guest then
 * has no fetch). Secret values are read from the environment here; core checks the rest.
 */
export function fetchFrom(flags: FetchFlags, env: NodeJS.ProcessEnv = process.env): FetchOptions | undefined {
  const allow = flags.fetchAllow ?? []
  if (allow.length === 0) {
    if (flags.fetchSecret !== undefined || flags.fetchAllowPrivate === true) {
      throw new UsageError('--fetch-secret and --fetch-allow-private need --fetch-allow (the origins the guest may fetch from)')
    }
    return undefined
  }
  const secrets: Record<string, FetchSecret> = {}
  for (const { name, variable, hosts } of flags.fetchSecret ?? []) {
    const value = env[variable]
    if (value === undefined || value === '') {
      throw new UsageError(`--fetch-secret ${name}: the environment variable ${variable} is not set`, {
        fix: `export ${variable}=… before running cordon`,
      })
    }
    secrets[name] = { value, hosts }
  }
  return {
    allow,
    ...(flags.fetchSecret !== undefined && { secrets }),
    ...(flags.fetchAllowPrivate === true && { allowPrivateAddresses: true }),
  }
}
