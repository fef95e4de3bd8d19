import { SandboxError } from '../errors.js'
import { describeOptionValue } from '../limits.js'
import type { ToolDefinition, ToolSet } from '../options.js'
import type { ToolDescriptor } from '../backend/v1/sandbox-backend.js'
import { RESERVED_GLOBAL_NAMES, isPlainIdentifier } from '../reserved-names.js'

export interface ToolRegistry {
  readonly descriptors: readonly ToolDescriptor[]
  readonly roots: ReadonlySet<string>
  readonly byName: ReadonlyMap<string, ToolDefinition>
  readonly hasSync: boolean
}

const EMPTY: ToolRegistry = { descriptors: [], roots: new Set(), byName: new Map(), hasSync: false }
const cache = new WeakMap<ToolSet, ToolRegistry>()

function invalid(message: string): never {
  throw new SandboxError('INVALID_OPTIONS', message)
}

/** Largest timer delay the platforms honour (setTimeout clamps anything above to 1 ms). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1

function checkToolTimeout(name: string, tool: ToolDefinition): void {
  const { timeoutMs } = tool
  if (timeoutMs === undefined) return
  if (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    invalid(`tool "${name}": timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}, got ${describeOptionValue(timeoutMs)}`)
  }
  if (tool.sync === true) invalid(`tool "${name}": timeoutMs cannot stop a sync tool (its host code runs synchronously); drop one of them`)
}

/** Validates a tool set once (cached per object) and lists what the guest will see. */
export function registerTools(tools: ToolSet | undefined): ToolRegistry {
  if (tools === undefined) return EMPTY
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools)) {
    invalid('tools must be an object keyed by dotted tool name')
  }
  const cached = cache.get(tools)
  if (cached !== undefined) return cached
  const byName = new Map<string, ToolDefinition>()
  const descriptors: ToolDescriptor[] = []
  const roots = new Set<string>()
  let hasSync = false
  const names = Object.keys(tools)
  const nameSet = new Set(names)
  for (const name of names) {
    const tool = tools[name]
    const segments = name.split('.')
    for (const segment of segments) {
      if (!isPlainIdentifier(segment)) {
        invalid(`tool name "${name}": each dot-separated part must be a plain identifier (letters, digits, _ or $; not a reserved word)`)
      }
    }
    const root = segments[0] as string
    if (RESERVED_GLOBAL_NAMES.has(root)) invalid(`tool name "${name}" would replace the guest's built-in "${root}"`)
    for (let i = 1; i < segments.length; i++) {
      const prefix = segments.slice(0, i).join('.')
      if (nameSet.has(prefix)) invalid(`tool "${prefix}" is also used as the namespace of "${name}"`)
    }
    if (typeof tool !== 'object' || tool === null || typeof tool.execute !== 'function') {
      invalid(`tool "${name}" must be an object with an execute(args, context) function`)
    }
    if (tool.sync !== undefined && typeof tool.sync !== 'boolean') invalid(`tool "${name}": sync must be a boolean`)
    const approval = tool.needsApproval
    if (approval !== undefined && typeof approval !== 'boolean' && typeof approval !== 'function') {
      invalid(`tool "${name}": needsApproval must be a boolean or a function (args) => boolean`)
    }
    checkToolTimeout(name, tool)
    const schema = tool.inputSchema
    if (schema !== undefined && typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
      invalid(`tool "${name}": inputSchema must be a JSON Schema object`)
    }
    byName.set(name, tool)
    roots.add(root)
    descriptors.push({ name, sync: tool.sync === true })
    if (tool.sync === true) hasSync = true
  }
  const registry: ToolRegistry = { descriptors, roots, byName, hasSync }
  cache.set(tools, registry)
  return registry
}
