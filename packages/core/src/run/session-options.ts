import { SandboxError } from '../errors.js'
import type { Limits } from '../limits.js'
import type { ToolSet } from '../options.js'
import type { SessionRunOptions } from '../session-types.js'
import { checkOptions } from './check-options.js'

function invalid(message: string): never {
  throw new SandboxError('INVALID_OPTIONS', message)
}

/** Checks `session.run` options; returns the run's limits and the tool names it narrows to. */
export function checkSessionRunOptions(options: unknown): { limits: Partial<Limits>; tools: readonly string[] | undefined } {
  if (options === undefined) return { limits: {}, tools: undefined }
  if (typeof options !== 'object' || options === null || Array.isArray(options)) invalid(`session run options must be an object`)
  const { tools, memoryMb, ...rest } = options as SessionRunOptions & { memoryMb?: unknown }
  const { fetch, modules } = options as { fetch?: unknown; modules?: unknown }
  if (fetch !== undefined && fetch !== false) invalid('session run options: fetch is not available in sessions yet; use sandbox.run')
  if (modules !== undefined) invalid('session run options: modules are not available in sessions yet; use sandbox.run')
  if (memoryMb !== undefined) invalid('session run options: memoryMb belongs to the session; set it in createSession({ memoryMb })')
  if (tools !== undefined && (!Array.isArray(tools) || tools.some((name) => typeof name !== 'string'))) {
    invalid('session run options: tools must be an array of granted tool names or namespaces, e.g. ["github"]')
  }
  return { limits: checkOptions(rest, 'session run options', true), tools }
}

/**
 * The subset of the session's grant that a run asked for. A name is a granted tool or a
 * namespace prefix of granted tools; anything else would widen the grant and is refused.
 */
export function narrowTools(
  grant: ToolSet | undefined,
  names: readonly string[] | undefined,
  cache: Map<string, ToolSet>,
): ToolSet | undefined {
  if (names === undefined) return grant
  const key = [...new Set(names)].sort().join('\n')
  const cached = cache.get(key)
  if (cached !== undefined) return cached
  const granted = Object.keys(grant ?? {})
  const subset: ToolSet = {}
  for (const name of names) {
    const matches = granted.filter((tool) => tool === name || tool.startsWith(`${name}.`))
    if (matches.length === 0)
      invalid(`session run options: tool "${name}" is not granted to this session (granted: ${granted.join(', ') || 'none'})`)
    for (const tool of matches) subset[tool] = (grant as ToolSet)[tool]!
  }
  // Cached per name set, so the registry (validated once per ToolSet object) is reused.
  cache.set(key, subset)
  return subset
}
