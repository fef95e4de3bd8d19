import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { staticGraph } from '../../../config/static-graph.js'

const dist = fileURLToPath(new URL('../dist', import.meta.url))

describe('importing @cordon/select', () => {
  // createSandbox() starts the engine child before core loads (src/early-engine.ts): that is
  // only sooner if importing this package did not load core already.
  it('loads core’s errors, and nothing else of core or of a backend', () => {
    const file = path.join(dist, 'index.js')
    expect(existsSync(file), `${file} (build select first)`).toBe(true)
    const outside = [...staticGraph(dist, file)].filter((m) => !m.startsWith(dist))
    expect(outside).toEqual(['@cordon/core/errors'])
  })
})
