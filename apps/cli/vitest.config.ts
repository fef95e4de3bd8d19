import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The tests spawn dist/cli.js, as a user's shell would: build it first when it is stale.
    globalSetup: ['test/build-cli.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    // Same pool settings as the rest of the repo (isolated-vm needs --no-node-snapshot).
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
  },
})
