import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The tests start dist/server.js as an MCP client would: build it first when it is stale.
    globalSetup: ['test/build-server.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    pool: 'forks',
  },
})
