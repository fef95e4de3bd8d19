/**
 * Where a UTCP tool lives in the guest, named as UTCP's code-mode client names it: the part of the
 * tool's name before the first dot (its manual) is a namespace, the parts after it joined by `_`
 * the function (`weather.get.current` → `weather.get_current`); a name without a dot is a global
 * function. Each part becomes an identifier: every character other than an ASCII letter, digit or
 * `_` turns into `_`, and a leading digit gets a `_` before it.
 */
export interface GuestName {
  /** The namespace object (the sanitized manual name), absent for a name without a dot. */
  namespace?: string
  /** The function's name in its namespace, or the global's. */
  name: string
  /** How guest code calls it, and cordon's dotted tool name for it: `namespace.name` or `name`. */
  path: string
}

export function guestName(toolName: string): GuestName {
  const dot = toolName.indexOf('.')
  if (dot === -1) {
    const name = identifier(toolName)
    return { name, path: name }
  }
  const namespace = identifier(toolName.slice(0, dot))
  const name = toolName
    .slice(dot + 1)
    .split('.')
    .map(identifier)
    .join('_')
  return { namespace, name, path: `${namespace}.${name}` }
}

function identifier(part: string): string {
  const safe = part.replace(/[^A-Za-z0-9_]/g, '_')
  return /^[0-9]/.test(safe) ? `_${safe}` : safe
}
