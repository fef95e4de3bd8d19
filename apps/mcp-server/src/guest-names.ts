import { RESERVED_WORDS } from '@cordon/core'

/**
 * MCP tool names may contain `-` and `.` (`get-issue`, `issues.list`) or be words JavaScript
 * reserves (`delete`); in the sandbox each must be one plain identifier after the namespace.
 * Other characters become `_`, a leading digit gets a `_` before it, a reserved word a `_`
 * after it. The declarations show the original name wherever it differs.
 */
export function guestIdentifier(toolName: string): string {
  let name = toolName.replace(/[^A-Za-z0-9_$]/g, '_')
  if (name === '' || /^[0-9]/.test(name)) name = `_${name}`
  if (RESERVED_WORDS.has(name)) name = `${name}_`
  return name
}

/** Guest names for one upstream's tools, in order; a name taken twice gets `_2`, `_3`, … */
export function guestIdentifiers(toolNames: readonly string[]): string[] {
  const taken = new Set<string>()
  return toolNames.map((toolName) => {
    const base = guestIdentifier(toolName)
    let name = base
    for (let n = 2; taken.has(name); n++) name = `${base}_${n}`
    taken.add(name)
    return name
  })
}

/** `list_issues` → `ListIssues`: type names in the declarations. */
export function pascalCase(identifier: string): string {
  const words = identifier.split(/[_$]+/).filter((word) => word !== '')
  const joined = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('')
  return joined === '' || /^[0-9]/.test(joined) ? `T${joined}` : joined
}
