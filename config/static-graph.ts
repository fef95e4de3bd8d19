import { readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * For a package's first-import test: every module a file of its `dist` loads before any code
 * runs, its static imports, transitively (a bare specifier is listed, not followed).
 */
export function staticGraph(dist: string, file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen
  seen.add(file)
  if (!file.startsWith(dist)) return seen
  const text = readFileSync(file, 'utf8')
  // `import … from "x"`, `export … from "x"` and `import "x"`; never `import("x")`, which loads on demand.
  for (const match of text.matchAll(/^(?:import|export)\s[^;(]*?from\s*"([^"]+)"|^import\s*"([^"]+)"/gm)) {
    const specifier = match[1] ?? match[2]!
    staticGraph(dist, specifier.startsWith('.') ? path.join(path.dirname(file), specifier) : specifier, seen)
  }
  return seen
}
