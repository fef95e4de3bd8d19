import { readFile } from 'node:fs/promises'
import path from 'node:path'
import type { z } from 'zod'
import { configSchema, type Config } from './config-schema.js'

/** A config file that cannot be used; the message says which file and what is wrong with it. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError'
}

export interface LoadedConfig {
  config: Config
  /** Relative upstream `cwd`s (and upstreams without one) are resolved from here. */
  directory: string
  /** The file it came from, or undefined when cordon-mcp runs without one. */
  file: string | undefined
}

export function emptyConfig(): LoadedConfig {
  return { config: configSchema.parse({}), directory: process.cwd(), file: undefined }
}

export async function loadConfig(file: string): Promise<LoadedConfig> {
  const absolute = path.resolve(file)
  let text: string
  try {
    text = await readFile(absolute, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = code === 'ENOENT' ? 'the file does not exist' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message
    throw new ConfigError(`cannot read the config file ${absolute}: ${why}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new ConfigError(`the config file ${absolute} is not valid JSON: ${(error as Error).message}`)
  }
  const parsed = configSchema.safeParse(json)
  if (!parsed.success) {
    throw new ConfigError(`the config file ${absolute} is not a valid cordon-mcp config:\n${describeIssues(parsed.error)}`)
  }
  return { config: parsed.data, directory: path.dirname(absolute), file: absolute }
}

/** One line per problem, each with the JSON path it is at. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const at = issue.path.length === 0 ? '(top level)' : issue.path.map(String).join('.')
      // A bad record key says only "Invalid key in record"; the reason is one level down.
      const message = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message
      return `  - ${at}: ${message}`
    })
    .join('\n')
}
