import { defineConfig, type Options } from 'tsup'
import { browserPlugins } from './browser-plugins.mjs'

/** What every package builds the same way: ESM for Node ≥ 20, types, source maps. */
export function packageBuild(options: Options): ReturnType<typeof defineConfig> {
  return defineConfig({ format: ['esm'], dts: true, clean: true, target: 'es2022', sourcemap: true, ...options })
}

/**
 * The same sources for browsers (the `browser` export condition), in dist-browser: each module
 * that has a `.browser.ts` variant beside it replaced by that, Node's built-ins by modules that
 * throw (browser-plugins.mjs). Dependencies stay imports, for the user's bundler to resolve.
 */
export function browserBuild(options: Options): Options {
  return {
    format: ['esm'],
    dts: false,
    clean: true,
    target: 'es2022',
    sourcemap: true,
    platform: 'browser',
    // Else tsup marks `node:` imports external before the plugin below sees them.
    removeNodeProtocol: false,
    outDir: 'dist-browser',
    ...options,
    esbuildPlugins: browserPlugins,
  }
}
