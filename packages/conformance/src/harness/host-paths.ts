/**
 * Traces of the host that must never show up in what the guest sees (error stacks,
 * messages): module paths, the working directory, Node internals.
 */
export function hostTraces(text: string, hostStacks: readonly string[] = []): string[] {
  const markers = new Set(['node_modules', 'file://', 'node:internal'])
  const cwd = workingDirectory()
  if (cwd !== undefined && cwd.length > 1) markers.add(cwd)
  for (const stack of [new Error('here').stack ?? '', ...hostStacks]) {
    for (const file of stackFiles(stack)) markers.add(file)
  }
  return [...markers].filter((marker) => text.includes(marker))
}

function stackFiles(stack: string): string[] {
  const files: string[] = []
  for (const match of stack.matchAll(/(?:\(|at |@)((?:file:\/\/)?\/[^\s():]+|[A-Za-z]:\\[^\s():]+)(?::\d+){1,2}/g)) {
    const file = match[1]
    if (file !== undefined) files.push(file)
  }
  return files
}

function workingDirectory(): string | undefined {
  const proc = (globalThis as { process?: { cwd?: () => string } }).process
  try {
    return proc?.cwd?.()
  } catch {
    return undefined
  }
}
