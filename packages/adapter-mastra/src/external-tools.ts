import { SandboxError, type ToolSet } from '@cordon/core'
import type { CodeModeToolDispatcher } from '@mastra/core/tools'
import { jsonValue } from './json-values.js'

/** The guest's `external_*` functions as cordon tools, and the Mastra tool id behind each name. */
export interface ExternalTools {
  tools: ToolSet
  /** `external_getWeather` → `getWeather`. */
  toolIds: ReadonlyMap<string, string>
}

/**
 * One cordon tool per allow-listed Mastra tool, named as Mastra's stubs name it
 * (`external_<id>`, see `externalName`), each calling `dispatch` (Mastra's own: the real tool,
 * with its validation). Arguments and results cross as JSON, as in Mastra's runner.
 */
export function externalTools(toolIds: readonly string[], dispatch: CodeModeToolDispatcher): ExternalTools {
  const tools: ToolSet = {}
  const ids = new Map<string, string>()
  for (const toolId of new Set(toolIds)) {
    const name = `external_${externalName(toolId)}`
    const other = ids.get(name)
    if (other !== undefined) {
      throw new SandboxError('INVALID_OPTIONS', `the code-mode tools "${other}" and "${toolId}" would both be ${name} in the program`)
    }
    ids.set(name, toolId)
    tools[name] = { execute: async (args: unknown) => jsonValue(await dispatch(toolId, jsonValue(args))) }
  }
  return { tools, toolIds: ids }
}

/**
 * The identifier Mastra's stubs give a tool id after `external_` (its `sanitizeToolId` rule):
 * every UTF-16 unit other than an ASCII letter, digit, `_` or `$` becomes `_`, and a name that
 * would not start an identifier gets a leading `_`.
 */
export function externalName(toolId: string): string {
  const name = toolId.replace(/[^A-Za-z0-9_$]/g, '_')
  return /^[A-Za-z_$]/.test(name) ? name : `_${name}`
}
