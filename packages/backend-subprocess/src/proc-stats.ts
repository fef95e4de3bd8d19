/** Reading a child's memory from Linux /proc (undefined wherever /proc cannot tell). */
import fs from 'node:fs'

export function readStatusKb(pid: number, field: 'VmRSS' | 'VmData'): number | undefined {
  let text: string
  try {
    text = fs.readFileSync(`/proc/${pid}/status`, 'latin1')
  } catch {
    return undefined
  }
  const at = text.indexOf(`${field}:`)
  if (at < 0) return undefined
  const value = Number.parseInt(text.slice(at + field.length + 1).trimStart(), 10)
  return Number.isFinite(value) ? value : undefined
}

/**
 * The process that actually runs Node: launch wrappers exec in place, except `unshare --fork`,
 * whose single child is Node. Follows single-child chains a few levels down.
 */
export function leafPid(pid: number): number {
  let current = pid
  for (let depth = 0; depth < 4; depth++) {
    let children: string[]
    try {
      children = fs.readFileSync(`/proc/${current}/task/${current}/children`, 'latin1').trim().split(/\s+/).filter(Boolean)
    } catch {
      return current
    }
    if (children.length !== 1) return current
    current = Number(children[0])
  }
  return current
}
