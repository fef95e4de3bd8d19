import { defineConfig, type Options } from 'tsup'

/** What every package builds the same way: ESM for Node ≥ 20, types, source maps. */
export function packageBuild(options: Options): ReturnType<typeof defineConfig> {
  return defineConfig({ format: ['esm'], dts: true, clean: true, target: 'es2022', sourcemap: true, ...options })
}
