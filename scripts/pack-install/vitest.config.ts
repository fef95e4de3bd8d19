import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { IvmFirst } from './sequencer.js'

const repo = fileURLToPath(new URL('../..', import.meta.url))

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['*.test.ts'],
    globalSetup: ['./global-setup.ts'],
    // Installs from the npm registry and, without the mirror of isolated-vm's binary, a native
    // build: minutes, not seconds (that compile took 6+ minutes on a busy 2-core machine).
    testTimeout: 120_000,
    hookTimeout: 900_000,
    // Two files at a time: the longest installs (backend-ivm's first) overlap the other projects.
    pool: 'forks',
    maxWorkers: 2,
    sequence: { sequencer: IvmFirst },
    reporters: ['default', 'json'],
    // The repo's own test-results/ is one of the dirs scripts/test-all.mjs totals.
    outputFile: { json: `${repo}test-results/pack-install.json` },
  },
})
