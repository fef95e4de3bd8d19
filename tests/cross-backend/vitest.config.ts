import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    // isolated-vm requires --no-node-snapshot from Node 20 on; forks pass it to each worker.
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
  },
})
