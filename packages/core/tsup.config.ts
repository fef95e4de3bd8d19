import { defineConfig } from 'tsup'

export default defineConfig({
  entry: { index: 'src/index.ts', backend: 'src/backend/index.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'es2022',
  sourcemap: true,
})
