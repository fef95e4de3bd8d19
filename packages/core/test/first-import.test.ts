import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { staticGraph } from '../../../config/static-graph.js'

const dist = fileURLToPath(new URL('../dist', import.meta.url))

describe('importing core loads only what every run needs', () => {
  // A fresh process's first engine starts after the imports (sandbox.ts prepares the backend at
  // the first run): the parser (~6 ms), ipaddr.js (~5 ms, CommonJS) and the source-map codec load
  // later, while the engine starts.
  it.each(['index.js', 'backend.js'])('dist/%s imports no parser, address or source-map library', (entry) => {
    const file = path.join(dist, entry)
    expect(existsSync(file), `${file} (build core first)`).toBe(true)
    const graph = [...staticGraph(dist, file)]
    expect(graph.filter((m) => /^(acorn|ipaddr\.js|@jridgewell\/sourcemap-codec|sucrase|ajv|undici)(\/|$)/.test(m))).toEqual([])
    // The walk itself found the chunks (a regexp that matched nothing would pass vacuously).
    expect(graph.filter((m) => m.startsWith(dist)).length).toBeGreaterThan(1)
  })
})
