import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  resolve: {
    // The self-tests run against core's source, so they need no build of @cordon/core.
    alias: [
      { find: /^@cordon\/core\/backend$/, replacement: fileURLToPath(new URL('../core/src/backend/index.ts', import.meta.url)) },
      { find: /^@cordon\/core$/, replacement: fileURLToPath(new URL('../core/src/index.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
})
