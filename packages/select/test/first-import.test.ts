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

describe('importing @cordon/select', () => {
  // createSandbox() starts the engine child before core loads (src/early-engine.ts): that is
  // only sooner if importing this package did not load core already.
  it('loads core’s errors, and nothing else of core or of a backend', () => {
    const file = path.join(dist, 'index.js')
    expect(existsSync(file), `${file} (build select first)`).toBe(true)
    const outside = [...staticGraph(file)].filter((m) => !m.startsWith(dist))
    expect(outside).toEqual(['@cordon/core/errors'])
  })
})
