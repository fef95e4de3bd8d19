import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const dist = fileURLToPath(new URL('../dist', import.meta.url))

/** Every module a file of dist loads before any code runs: its static imports, transitively. */
function staticGraph(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen
  seen.add(file)
  if (!file.startsWith(dist)) return seen
  const text = readFileSync(file, 'utf8')
  // `import … from "x"`, `export … from "x"` and `import "x"`; never `import("x")`, which loads on demand.
  for (const match of text.matchAll(/^(?:import|export)\s[^;(]*?from\s*"([^"]+)"|^import\s*"([^"]+)"/gm)) {
    const specifier = match[1] ?? match[2]!
    staticGraph(specifier.startsWith('.') ? path.join(path.dirname(file), specifier) : specifier, seen)
  }
  return seen
}

describe('importing core loads only what every run needs', () => {
  // A fresh process's first engine starts after the imports (sandbox.ts prepares the backend at
  // the first run): the parser (~6 ms), ipaddr.js (~5 ms, CommonJS) and the source-map codec load
  // later, while the engine starts.
  it.each(['index.js', 'backend.js'])('dist/%s imports no parser, address or source-map library', (entry) => {
    const file = path.join(dist, entry)
    expect(existsSync(file), `${file} (build core first)`).toBe(true)
    const graph = [...staticGraph(file)]
    expect(graph.filter((m) => /^(acorn|ipaddr\.js|@jridgewell\/sourcemap-codec|sucrase|ajv|undici)(\/|$)/.test(m))).toEqual([])
    // The walk itself found the chunks (a regexp that matched nothing would pass vacuously).
    expect(graph.filter((m) => m.startsWith(dist)).length).toBeGreaterThan(1)
  })
})
