import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    // The real ivm probe needs --no-node-snapshot (isolated-vm's requirement from Node 20 on).
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
  },
})
