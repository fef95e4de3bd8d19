/** Whether this is Node or a runtime that passes for it (Bun, Deno): it has `process.versions.node`. */
export function runsOnNode(): boolean {
  const versions = (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions
  return typeof versions?.node === 'string'
}
