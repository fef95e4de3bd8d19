import { defineConfig, mergeConfig, type ViteUserConfig } from 'vitest/config'

/**
 * What every workspace tests the same way: test/**\/*.test.ts, generous time bounds (limit tests
 * measure real time on a loaded 2-core machine), and a JSON report that scripts/test-all.mjs adds up.
 * `isolatedVm` runs the tests in forks with --no-node-snapshot (isolated-vm's requirement from Node 20 on).
 */
export function workspaceTests(overrides: ViteUserConfig = {}, { isolatedVm = false } = {}): ViteUserConfig {
  const base = defineConfig({
    test: {
      include: ['test/**/*.test.ts'],
      testTimeout: 30_000,
      hookTimeout: 30_000,
      reporters: ['default', 'json'],
      outputFile: { json: 'test-results/vitest.json' },
      ...(isolatedVm ? { pool: 'forks', execArgv: ['--no-node-snapshot'] } : {}),
    },
  })
  return mergeConfig(base, overrides)
}
