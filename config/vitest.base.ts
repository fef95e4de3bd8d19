import { defineConfig, mergeConfig, type ViteUserConfig } from 'vitest/config'

/** Test files that measure the host's responsiveness in milliseconds: they run alone, after the rest. */
export const QUIET_FILES = 'test/**/*.quiet.test.ts'

/**
 * What every workspace tests the same way: test/**\/*.test.ts, generous time bounds (limit tests
 * measure real time on a loaded 2-core machine), and a JSON report that scripts/test-all.mjs adds up.
 *
 * Two projects split the files explicitly: `parallel` (every file but *.quiet.test.ts; they may
 * share the machine with other suites) and `quiet` (*.quiet.test.ts: one file at a time, after the
 * parallel ones, with nothing else running when scripts/test-all.mjs schedules them).
 * `isolatedVm` runs the tests in forks with --no-node-snapshot (isolated-vm's requirement from Node 20 on).
 */
export function workspaceTests(overrides: ViteUserConfig = {}, { isolatedVm = false } = {}): ViteUserConfig {
  const base = defineConfig({
    test: {
      testTimeout: 30_000,
      hookTimeout: 30_000,
      reporters: ['default', 'json'],
      outputFile: { json: 'test-results/vitest.json' },
      ...(isolatedVm ? { pool: 'forks', execArgv: ['--no-node-snapshot'] } : {}),
    },
  })
  // Projects that extend the root concatenate its arrays: the file lists live in the projects only.
  const { include = ['test/**/*.test.ts'], exclude: own = [], ...rest } = overrides.test ?? {}
  // vitest's --exclude does not reach projects: scripts/test-node-line.mjs leaves files out this way.
  const exclude = [...own, ...(process.env.CORDON_TEST_EXCLUDE ?? '').split(',').filter(Boolean)]
  const merged = mergeConfig(base, { ...overrides, test: rest })
  return mergeConfig(merged, {
    test: {
      projects: [
        { extends: true, test: { name: 'parallel', include, exclude: [...exclude, QUIET_FILES], sequence: { groupOrder: 0 } } },
        { extends: true, test: { name: 'quiet', include: [QUIET_FILES], exclude, fileParallelism: false, sequence: { groupOrder: 1 } } },
      ],
    },
  })
}
