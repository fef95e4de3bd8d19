// The esbuild plugins every browser build of this repository uses (config/tsup.base.ts's
// browserBuild, backend-quickjs's web-worker.js): `x.browser.ts` beside `x.ts` takes its place,
// and Node's built-in modules become modules that throw when loaded.
import { existsSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join } from 'node:path'

/** Every `node:` import, and the bare names of Node's built-ins (`fs`, `http`, …). */
const NODE_BUILTIN = new RegExp(`^(node:.*|${builtinModules.map((name) => name.replace(/[/]/g, '\\/')).join('|')})$`)

/** A module `x.browser.ts` beside `x.ts` replaces it (`import './x.js'`) in the browser build. */
export const browserVariants = {
  name: 'browser-variants',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\/.*\.js$/ }, (args) => {
      const variant = join(args.resolveDir, args.path.replace(/\.js$/, '.browser.ts'))
      return existsSync(variant) ? { path: variant } : undefined
    })
  },
}

/**
 * A bundler for the web then meets no `node:` import, and the code that needs one (always loaded
 * lazily, behind a check) fails with a clear error instead.
 */
export const nodeBuiltinsThrow = {
  name: 'node-builtins-throw',
  setup(build) {
    build.onResolve({ filter: NODE_BUILTIN }, (args) => ({ path: args.path, namespace: 'node-builtin' }))
    build.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({
      // An ES module (no CommonJS wrapper, whose helpers a bundler would warn about), so only a
      // dynamic import() may reach one: a static import would throw as its chunk loads.
      contents: `throw new Error(${JSON.stringify(`${args.path} is not available in a browser`)})\nexport {}\n`,
      loader: 'js',
    }))
  },
}

/** Both, in the order they must run. */
export const browserPlugins = [browserVariants, nodeBuiltinsThrow]
