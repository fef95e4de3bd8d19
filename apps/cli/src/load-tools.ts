import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { ToolSet } from '@cordon/core'
import { UsageError, messageOf } from './usage-error.js'

/**
 * `--tools <module>` (repeatable): an ES module (or CommonJS file) whose default export, or
 * named export `tools`, is a ToolSet — `{ 'ns.fn': { description?, inputSchema?, execute } }` —
 * or a function (possibly async) returning one. Paths are relative to the current directory.
 */
export async function loadTools(specs: readonly string[]): Promise<ToolSet> {
  const merged: ToolSet = {}
  for (const spec of specs) {
    const tools = await loadOne(spec)
    for (const [name, tool] of Object.entries(tools)) {
      if (Object.hasOwn(merged, name)) throw new UsageError(`tool ${name} is defined by two --tools modules (the second is ${spec})`)
      merged[name] = tool
    }
  }
  return merged
}

async function loadOne(spec: string): Promise<ToolSet> {
  const file = path.resolve(spec)
  if (!existsSync(file)) throw new UsageError(`--tools module ${spec} not found (looked for ${file})`)
  let mod: Record<string, unknown>
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>
  } catch (error) {
    throw new UsageError(`could not load --tools module ${spec}: ${messageOf(error)}${whereIn(error, file)}`, { cause: error })
  }
  let exported = mod.default ?? mod.tools
  if (exported === undefined) {
    throw new UsageError(`--tools module ${spec} has no default export and no export named tools`, {
      fix: "export default { 'ns.fn': { description: '…', execute: async (args) => … } }",
    })
  }
  if (typeof exported === 'function') {
    try {
      exported = await (exported as () => unknown)()
    } catch (error) {
      throw new UsageError(`the function exported by --tools module ${spec} threw: ${messageOf(error)}`, { cause: error })
    }
  }
  return checkToolSet(exported, spec)
}

function checkToolSet(value: unknown, spec: string): ToolSet {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(
      `--tools module ${spec} must export an object of tools by name, got ${Array.isArray(value) ? 'an array' : String(value)}`,
    )
  }
  for (const [name, tool] of Object.entries(value)) {
    if (typeof tool !== 'object' || tool === null || typeof (tool as { execute?: unknown }).execute !== 'function') {
      throw new UsageError(`--tools module ${spec}: tool ${name} must be an object with an execute(args) function`)
    }
  }
  return value as ToolSet
}

/**
 * Node's error for a syntax error in an imported module has no position. `node --check`
 * prints it (`file:line`, the line, a caret): worth a second process on this failure path only.
 */
function whereIn(error: unknown, file: string): string {
  if (!(error instanceof Error) || error.name !== 'SyntaxError') return ''
  const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', timeout: 5_000 })
  const frame = (check.stderr ?? '').split(/\n\s*\n/)[0]?.trimEnd()
  return frame && frame.startsWith(file) ? `\n${frame}` : ''
}
