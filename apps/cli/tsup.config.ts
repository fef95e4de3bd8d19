import { defineConfig } from 'tsup'

export default defineConfig({
  entry: ['src/cli.ts'],
  format: ['esm'],
  clean: true,
  target: 'es2022',
  sourcemap: true,
  // The bin is this file: `cordon …` runs it with the node on PATH.
  banner: { js: '#!/usr/bin/env node' },
})
